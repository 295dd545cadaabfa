package codec

import (
	"bytes"
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

func TestNanos(t *testing.T) {
	if Nanos(time.Time{}) != 0 || !FromNanos(0).IsZero() {
		t.Error("the zero time does not map to 0 and back")
	}
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.FixedZone("x", 3600))
	if back := FromNanos(Nanos(at)); !back.Equal(at) || back.Location() != time.UTC {
		t.Errorf("FromNanos(Nanos(%v)) = %v, want the same instant in UTC", at, back)
	}
}
