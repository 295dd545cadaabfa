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
	"os"
	"path/filepath"
)

// Write writes path with fill through a temporary file in path's directory
// (so the final move is within one file system, hence atomic), moved into
// place only once fill has succeeded and the data is synced: on any failure
// the old file, or none, is left. Without force an existing path is
// refused — before fill runs, since fill may be long (a crawl's log) — with
// an error naming the --force flag; what is placed is readable by all
// (0644, umask aside), as an ordinary os.Create'd file would be.
func Write(path string, force bool, fill func(io.Writer) error) error {
	if err := CheckAbsent(path, force); err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// A name of its own (CreateTemp), never a fixed one such as FILE.tmp,
	// which a file of the user's or a concurrent write may have.
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return err
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
	if err := f.Chmod(0o644); err != nil { // CreateTemp makes it 0600
		return err
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

// CheckAbsent fails when path exists and force is not set, naming the
// --force flag that replaces it. Write checks it first; a command that
// does slow work before it writes (fetching pages) checks it before that.
func CheckAbsent(path string, force bool) error {
	if force {
		return nil
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s already exists: pass --force to replace it", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
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
