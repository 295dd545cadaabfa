// Package logging builds focuscrawl's structured logger (log/slog, text to
// stderr) and adapts it for the Temporal SDK.
package logging

import (
	"io"
	"log/slog"

	"go.temporal.io/sdk/log"
)

// New returns a text logger at the given level (debug, info, warn, error).
func New(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	switch level {
	case "debug":
		l = slog.LevelDebug
	case "warn":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}

// Temporal adapts l for the Temporal SDK, which otherwise logs to stdout.
func Temporal(l *slog.Logger) log.Logger {
	return log.NewStructuredLogger(l)
}
