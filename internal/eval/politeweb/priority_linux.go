//go:build linux

package politeweb

import (
	"errors"
	"os"
	"strconv"
	"syscall"
)

// serverNice is the scheduling priority Serve asks for: a site's server
// runs on its own machine, and the benchmark's shares two cores with the
// crawler, its Temporal server and whatever else runs there. Under that
// load a request's handler started up to ~130 ms after the request had
// arrived (the same for every request waiting then), so two requests sent
// 1.05 s apart were logged 0.92 s apart (2026-11-28, load average 4–6):
// the log measured the machine, not the crawler. A higher priority makes
// the kernel run the server as soon as a request wakes it.
const serverNice = -10

// raisePriority gives every thread of this process serverNice (Linux
// keeps a nice value per thread; threads started later inherit their
// creator's). The Go runtime may start a thread while the list is walked,
// from one not raised yet (one of nine stayed at 0 in a trial), so the
// list is walked again until a walk finds no thread it had not seen. Only
// root may raise it: otherwise it reports why not.
func raisePriority() error {
	done := map[int]bool{}
	for range 10 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		fresh := 0
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || done[tid] {
				continue
			}
			err = syscall.Setpriority(syscall.PRIO_PROCESS, tid, serverNice)
			if err != nil && !errors.Is(err, syscall.ESRCH) { // ESRCH: the thread ended since the walk
				return err
			}
			done[tid] = true
			fresh++
		}
		if fresh == 0 {
			return nil
		}
	}
	return nil
}
