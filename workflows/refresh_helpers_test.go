package workflows

import (
	"testing"
	"time"

	"go.temporal.io/sdk/converter"

	"focuscrawl/internal/config"
)

var testRefreshCfg = config.Refresh{MinInterval: time.Hour, MaxInterval: 10 * 24 * time.Hour, InitialInterval: 24 * time.Hour}

func converterOf(t *testing.T) converter.DataConverter {
	t.Helper()
	return converter.GetDefaultDataConverter()
}
