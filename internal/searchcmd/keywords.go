package searchcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/search"
	"focuscrawl/internal/store"
)

// Seed expansion's candidate keywords (seed 003): the operator reviews the
// recorded candidates and promotes the ones worth keeping by sending an
// edited topic file to the running crawl (starter update-topic, the variable
// topic of seed 000).
func init() {
	register("keywords", cli.Command{
		Summary: "list a topic's candidate keywords: no-result search queries recorded by seed expansion (TOPIC [--live])",
		Flags: func(fs *pflag.FlagSet) {
			fs.Bool("live", false, "list the no-result queries as the store has them now, not as last recorded")
			fs.Int("limit", 50, "with --live: how many")
		},
		Run: runKeywords,
	})
}

func runKeywords(ctx context.Context, env *cli.Env) error {
	name, err := env.OneArg("TOPIC")
	if err != nil {
		return err
	}
	live, _ := env.FS.GetBool("live")
	limit, _ := env.FS.GetInt("limit")
	st, err := openStoreToRead(ctx, env.Cfg.Store)
	if err != nil {
		return err
	}
	defer st.Close()
	var qs []store.QueryCount
	header := ""
	if live {
		// The forms of one query (網路 and 网络, "Rose" and "rose") are
		// one line, as in the candidate keywords.
		if qs, err = search.NoResultQueries(ctx, st, name, limit); err != nil {
			return err
		}
		header = fmt.Sprintf("no-result queries of %s (live)", name)
	} else {
		data, v, err := st.Model(ctx, name, store.CandidateKeywordsKind, 0)
		if errors.Is(err, store.ErrNotFound) {
			fmt.Printf("no candidate keywords recorded for %s (seed expansion records them when the topic sets strategy.expand.keywords and crawl.expand_every > 0; --live lists the recorded queries)\n", name)
			return nil
		} else if err != nil {
			return err
		}
		var ck store.CandidateKeywords
		if err := json.Unmarshal(data, &ck); err != nil {
			return fmt.Errorf("stored candidate keywords of %s v%d: %w", name, v, err)
		}
		qs = ck.Queries
		header = fmt.Sprintf("candidate keywords of %s (version %d)", name, v)
	}
	fmt.Println(header)
	if err := writeQueryCounts(os.Stdout, qs); err != nil {
		return err
	}
	fmt.Println("The topic is not changed: add the ones you want to the topic file's keywords and run 'starter update-topic CRAWL_ID --topic FILE'.")
	return nil
}

// writeQueryCounts prints recorded queries as a table. A query is what
// anyone sent to the public search page: printed through printable, so a
// bidirectional override or a control character in it cannot reorder or
// rewrite the operator's terminal.
func writeQueryCounts(w io.Writer, qs []store.QueryCount) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "QUERY\tCOUNT\tLAST ASKED")
	for _, q := range qs {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", printable(q.Query), q.Count, q.Last.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}
