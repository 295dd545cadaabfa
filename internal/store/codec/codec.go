// Package codec holds the encodings every crawl-store backend shares, so
// that the SQLite and PostgreSQL stores write blobs and times the same way:
// page bodies and parse results compressed with raw DEFLATE (done in the
// worker, which scales out, rather than in a shared database server), and
// times as unix nanoseconds with 0 for the zero time.
package codec

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"
	"time"

	kflate "github.com/klauspost/compress/flate"
)

// Encoding names the blob codec in the stores' blobs.encoding column.
const Encoding = "flate"

// flate writers allocate several hundred KB each; reuse them. BestSpeed:
// parse records and bodies are written once per page on the hot path, and
// level 6 cost several times more CPU for ~10% smaller blobs. The writer
// is github.com/klauspost/compress/flate's, not the standard library's:
// the same raw DEFLATE (compress/flate reads it, Decompress included), and
// at BestSpeed the same size within 0.1% on the loopback benchmark's parse
// records, in about a quarter of the CPU (docs/benchmarks.md, 2026-11-28).
var flateWriters = sync.Pool{New: func() any {
	w, _ := kflate.NewWriter(nil, kflate.BestSpeed)
	return w
}}

// Compress deflates data (raw DEFLATE, BestSpeed).
func Compress(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(data)/3 + 64)
	w := flateWriters.Get().(*kflate.Writer)
	defer flateWriters.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Decompress inflates data stored with encoding; size is the recorded
// uncompressed length, used only to preallocate.
func Decompress(encoding string, data []byte, size int64) ([]byte, error) {
	if encoding != Encoding {
		return nil, fmt.Errorf("unknown blob encoding %q", encoding)
	}
	r := flate.NewReader(bytes.NewReader(data))
	defer r.Close()
	// size comes from the row; cap the preallocation in case it is corrupt.
	out := make([]byte, 0, min(max(size, 0), 64<<20))
	buf := bytes.NewBuffer(out)
	if _, err := io.Copy(buf, r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Nanos stores t as unix nanoseconds; the zero time is 0 (its UnixNano
// would overflow).
func Nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// FromNanos is the inverse of Nanos, in UTC.
func FromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
