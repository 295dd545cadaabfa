package pagemodel

import (
	"math"
	"sort"
	"testing"

	"focuscrawl/internal/relevance"
)

// gmmSplit: a Gaussian mixture over the logarithms of the scores above
// 0.005, with 1..maxK components fitted by EM and the number chosen by BIC;
// the threshold is the lowest score whose most likely component is the top
// one (0: one component, or the top one is less than 1.5x above the next).
func gmmSplit(maxK int, minN int) splitFn {
	return func(s []float64) float64 {
		var vs []float64
		for _, x := range s {
			if x > 0.005 {
				vs = append(vs, math.Log(x))
			}
		}
		if len(vs) < minN {
			return 0
		}
		sort.Float64s(vs)
		bestBIC, bestTh := math.Inf(1), 0.0
		for k := 1; k <= maxK && k <= len(vs)/2; k++ {
			mu, sd, w, ll := fitGMM(vs, k)
			bic := -2*ll + float64(3*k-1)*math.Log(float64(len(vs)))
			if bic >= bestBIC {
				continue
			}
			bestBIC, bestTh = bic, 0
			if k == 1 {
				continue
			}
			top := 0
			for j := range mu {
				if mu[j] > mu[top] {
					top = j
				}
			}
			next := math.Inf(-1)
			for j := range mu {
				if j != top && mu[j] > next {
					next = mu[j]
				}
			}
			if mu[top]-next < math.Log(1.5) {
				continue
			}
			for _, x := range vs {
				bj, bp := 0, math.Inf(-1)
				for j := range mu {
					if p := math.Log(w[j]) + logNorm(x, mu[j], sd[j]); p > bp {
						bj, bp = j, p
					}
				}
				if bj == top && x >= next {
					bestTh = math.Exp(x)
					break
				}
			}
		}
		return bestTh
	}
}

func logNorm(x, mu, sd float64) float64 {
	z := (x - mu) / sd
	return -0.5*z*z - math.Log(sd) - 0.5*math.Log(2*math.Pi)
}

// fitGMM fits k components to sorted xs by EM from quantile starts.
func fitGMM(xs []float64, k int) (mu, sd, w []float64, ll float64) {
	n := len(xs)
	mu, sd, w = make([]float64, k), make([]float64, k), make([]float64, k)
	for j := range k {
		lo, hi := j*n/k, (j+1)*n/k
		m, v := 0.0, 0.0
		for _, x := range xs[lo:hi] {
			m += x
		}
		m /= float64(hi - lo)
		for _, x := range xs[lo:hi] {
			v += (x - m) * (x - m)
		}
		mu[j], sd[j], w[j] = m, math.Max(math.Sqrt(v/float64(hi-lo)), 0.05), 1/float64(k)
	}
	r := make([]float64, n*k)
	for range 200 {
		ll = 0
		for i, x := range xs {
			mx := math.Inf(-1)
			for j := range k {
				r[i*k+j] = math.Log(w[j]) + logNorm(x, mu[j], sd[j])
				mx = math.Max(mx, r[i*k+j])
			}
			sum := 0.0
			for j := range k {
				r[i*k+j] = math.Exp(r[i*k+j] - mx)
				sum += r[i*k+j]
			}
			for j := range k {
				r[i*k+j] /= sum
			}
			ll += mx + math.Log(sum)
		}
		for j := range k {
			nj, m := 0.0, 0.0
			for i, x := range xs {
				nj += r[i*k+j]
				m += r[i*k+j] * x
			}
			if nj < 1e-9 {
				continue
			}
			m /= nj
			v := 0.0
			for i, x := range xs {
				v += r[i*k+j] * (x - m) * (x - m)
			}
			mu[j], sd[j], w[j] = m, math.Max(math.Sqrt(v/nj), 0.05), nj/float64(n)
		}
	}
	return mu, sd, w, ll
}

// TestExploreGMM replays mixture splits chosen by BIC, online and final,
// and final only.
func TestExploreGMM(t *testing.T) {
	def := func(s []float64) float64 { return relevance.SplitThreshold(s) }
	replaySplits(loadExplore(t), []splitCand{
		{"default", def, def},
		{"gmm3 both", gmmSplit(3, 10), gmmSplit(3, 10)},
		{"gmm3 final", def, gmmSplit(3, 10)},
		{"gmm4 both", gmmSplit(4, 10), gmmSplit(4, 10)},
		{"gmm4 final", def, gmmSplit(4, 10)},
	})
}
