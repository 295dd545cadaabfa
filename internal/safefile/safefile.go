// Package safefile writes a command's output file so that a failed or
// interrupted write never leaves part of one, and an existing file — a
// crawl log kept, a topic file edited by hand — is replaced only when the
// user asked for it.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Write writes path with fill through a temporary file in path's directory
// (so the final move is within one file system, hence atomic), moved into
// place only once fill has succeeded and the data is synced: on any failure
// the old file, or none, is left. Without force an existing path is
// refused — before fill runs, since fill may be long (a crawl's log) — with
// an error naming the --force flag. A new file gets the mode an os.Create'd
// one would (0666 less the umask), a replaced one keeps its mode, and a
// symbolic link is written through (its target is replaced). A path that
// is a device, a pipe or a socket (/dev/stdout, a shell's <(…)) is written
// directly: a stream is not a file to keep.
func Write(path string, force bool, fill func(io.Writer) error) error {
	if err := CheckAbsent(path, force); err != nil {
		return err
	}
	mode := fs.FileMode(0)
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return writeStream(path, fill)
		}
		mode = fi.Mode().Perm()
		if target, err := filepath.EvalSymlinks(path); err == nil {
			path = target
		}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, base)
	if err != nil {
		// Named after the file asked for: the hidden temporary name read
		// as a file the user never mentioned (a new user's trial).
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			return fmt.Errorf("write %s: %w", path, pe.Err)
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, placed := f.Name(), false
	defer func() {
		if !placed {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := fill(f); err != nil {
		return err
	}
	if mode != 0 {
		if err := f.Chmod(mode); err != nil {
			return err
		}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := place(tmp, path, force); err != nil {
		return err
	}
	placed = true
	return nil
}

// createTemp creates a new file named after base in dir, of its own name
// (never a fixed one such as FILE.tmp, which a file of the user's or a
// concurrent write may have) and with mode 0666 less the umask, as
// os.Create would make the file it stands for (os.CreateTemp makes 0600).
func createTemp(dir, base string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("no free temporary file name for %s in %s", base, dir)
}

// writeStream writes fill's output to an existing device, pipe or socket.
func writeStream(path string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// CheckAbsent fails when path exists and force is not set, naming the
// --force flag that replaces it. Write checks it first; a command that
// does slow work before it writes (fetching pages) checks it before that.
// A directory is refused with or without force; a device, pipe or socket
// (which Write writes to directly) is not.
func CheckAbsent(path string, force bool) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr == nil {
			return fmt.Errorf("%s is a symbolic link to a missing file: remove it or name the file", path)
		}
		return nil
	} else if err != nil {
		return err
	}
	switch {
	case fi.IsDir():
		return fmt.Errorf("%s is a directory: name a file", path)
	case !fi.Mode().IsRegular():
		return nil
	case force:
		return nil
	}
	return fmt.Errorf("%s already exists: pass --force to replace it", path)
}

// place moves the written temporary file tmp to path. Without force it
// links it there, which fails if path has appeared since CheckAbsent
// looked (a rename would silently replace it), and falls back to a check
// and a rename on a file system without hard links.
func place(tmp, path string, force bool) error {
	if !force {
		err := os.Link(tmp, path)
		if err == nil {
			os.Remove(tmp)
			return nil
		}
		if errors.Is(err, fs.ErrExist) {
			return CheckAbsent(path, false)
		}
		if err := CheckAbsent(path, false); err != nil {
			return err
		}
	}
	return os.Rename(tmp, path)
}
