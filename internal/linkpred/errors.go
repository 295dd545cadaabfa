package linkpred

import "fmt"

func errRange(name, key string, v float64) error {
	return fmt.Errorf("strategy.link_predictor %s: %s %v must be in [0,1]", name, key, v)
}
