package focus

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/longbridgeapp/opencc"
)

// convertScript writes a copy of the site at src to dst with every HTML
// page converted to Traditional Chinese, Taiwan usage (OpenCC's s2twp:
// phrases such as 软件 → 軟體 and 网络 → 網路 as well as characters), other
// files copied as they are. It does nothing when dst exists: a copy is
// written to a temporary directory and renamed into place only when
// complete, so an interrupted run leaves no half-converted corpus.
func convertScript(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	cc, err := opencc.New("s2twp")
	if err != nil {
		return fmt.Errorf("opencc: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".hant-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		out := filepath.Join(tmp, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil // the packages' symlinks point outside the site
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".html") {
			s, err := cc.Convert(string(b))
			if err != nil {
				return fmt.Errorf("convert %s: %w", rel, err)
			}
			b = []byte(s)
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
