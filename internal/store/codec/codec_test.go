package codec

import (
	"bytes"
	"compress/flate"
	"fmt"
	"testing"
	"time"
)

func TestCompressRoundTrip(t *testing.T) {
	for _, data := range [][]byte{{}, []byte("héllo 世界"), bytes.Repeat([]byte("focused crawling "), 10_000)} {
		packed, err := Compress(data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decompress(Encoding, packed, int64(len(data)))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("round trip of %d bytes: got %d bytes, %v", len(data), len(got), err)
		}
	}
	if _, err := Decompress("zstd", nil, 0); err == nil {
		t.Error("an unknown encoding decoded")
	}
}

// Blobs written before Compress moved to github.com/klauspost/compress
// (by compress/flate, at any level) keep their encoding name and must
// still read back; what Compress writes now must read with compress/flate
// alone (TestCompressRoundTrip: Decompress is compress/flate's).
func TestDecompressStdlibBlobs(t *testing.T) {
	data := parseLike(200)
	for _, level := range []int{flate.BestSpeed, flate.DefaultCompression, flate.BestCompression} {
		var buf bytes.Buffer
		w, err := flate.NewWriter(&buf, level)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		w.Close()
		got, err := Decompress(Encoding, buf.Bytes(), int64(len(data)))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("level %d: got %d bytes, %v", level, len(got), err)
		}
	}
}

// parseLike is a JSON text like a stored parse record (links, text, term
// counts), of about 60 bytes per n.
func parseLike(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"doc":{"Links":[`)
	for i := range n {
		fmt.Fprintf(&b, `{"URL":"http://www.site%d.test/page/%d/","Text":"a guide to bond %d"},`, i%30, i*7919%1000, i)
	}
	b.WriteString(`{}]},"tf":{`)
	for i := range n {
		fmt.Fprintf(&b, `"term%d":%d,`, i*31%997, i%5+1)
	}
	b.WriteString(`"x":1}}`)
	return b.Bytes()
}

// go test ./internal/store/codec -run '^$' -bench Compress
func BenchmarkCompress(b *testing.B) {
	data := parseLike(150) // about 10 kB, the loopback benchmark's mean record
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Compress(data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestNanos(t *testing.T) {
	if Nanos(time.Time{}) != 0 || !FromNanos(0).IsZero() {
		t.Error("the zero time does not map to 0 and back")
	}
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.FixedZone("x", 3600))
	if back := FromNanos(Nanos(at)); !back.Equal(at) || back.Location() != time.UTC {
		t.Errorf("FromNanos(Nanos(%v)) = %v, want the same instant in UTC", at, back)
	}
}
