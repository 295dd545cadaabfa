//go:build !linux

package politeweb

import "errors"

// raisePriority is Linux only (priority_linux.go).
func raisePriority() error { return errors.New("not on Linux") }
