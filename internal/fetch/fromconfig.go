package fetch

import "focuscrawl/internal/config"

// FromConfig maps the fetch section of the configuration onto the
// fetcher's Config.
func FromConfig(c config.Fetch) Config {
	return Config{
		UserAgent:            c.UserAgent,
		ConnectTimeout:       c.ConnectTimeout,
		ReadTimeout:          c.ReadTimeout,
		MaxRedirects:         c.MaxRedirects,
		MaxFetchTime:         c.MaxFetchTime,
		MaxBodyBytes:         c.MaxBodyBytes,
		ContentTypes:         c.ContentTypes,
		AllowPrivateNetworks: c.AllowPrivateNetworks,
		Retries:              c.Retries,
		RetryBaseDelay:       c.RetryBaseDelay,
		RetryMaxDelay:        c.RetryMaxDelay,
		RespectRobots:        c.RespectRobots,
		RobotsTTL:            c.RobotsTTL,
		Resolve:              c.Resolve,
	}
}
