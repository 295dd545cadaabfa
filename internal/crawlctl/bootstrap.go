package crawlctl

import (
	"context"

	"github.com/spf13/pflag"

	"focuscrawl/internal/cli"
)

// bootstrap points to where a topic is bootstrapped from example URLs: the
// search command, which holds the tokenizer (gojieba, cgo) a draft's
// keywords need; starter talks to Temporal only. Users who know the
// feature as "the starter bootstraps a topic" (issue 12's wording) get the
// command line instead of "unknown command".
func init() {
	register("bootstrap", cli.Command{
		Summary: "bootstrap a topic file from example pages: done by 'search topic bootstrap URL... --name N'",
		// The search command's flags (--name, --out…) are let through, so
		// its command line copied here gets the pointer, not a flag error.
		Flags: func(fs *pflag.FlagSet) { fs.ParseErrorsAllowlist.UnknownFlags = true },
		Run: func(context.Context, *cli.Env) error {
			return cli.UsageError("a topic file is bootstrapped from example pages by the search command, which has the tokenizer:\n" +
				"  go run ./search topic bootstrap URL... --name NAME --out FILE   (or var/bin/search after make up)\n" +
				"then: starter validate --topic FILE, starter crawl --topic FILE (docs/topic-file.md, Bootstrapping a topic)")
		},
	})
}
