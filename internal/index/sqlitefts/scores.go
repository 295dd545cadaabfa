package sqlitefts

import (
	"context"
	"fmt"
	"math"

	"focuscrawl/internal/index"
)

// UpdateScores implements index.Index: it sets hub, authority and IPageRank
// of the topic's indexed documents in one transaction. Unknown IDs are
// ignored; the FTS text is untouched.
func (x *Index) UpdateScores(ctx context.Context, topic string, scores map[string]index.Scores) error {
	if len(scores) == 0 {
		return nil
	}
	for id, s := range scores {
		for _, v := range []float64{s.Hub, s.Authority, s.IPageRank} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("sqlitefts: update scores of %s in topic %q: invalid score %v", id, topic, v)
			}
		}
	}
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlitefts: update scores: begin: %w", err)
	}
	defer tx.Rollback()
	upd, err := tx.PrepareContext(ctx, `UPDATE docs SET hub = ?, authority = ?, ipagerank = ? WHERE topic = ? AND id = ?`)
	if err != nil {
		return fmt.Errorf("sqlitefts: update scores: prepare: %w", err)
	}
	defer upd.Close()
	for id, s := range scores {
		if _, err := upd.ExecContext(ctx, s.Hub, s.Authority, s.IPageRank, topic, id); err != nil {
			return fmt.Errorf("sqlitefts: update scores of %s in topic %q: %w", id, topic, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlitefts: update scores: commit: %w", err)
	}
	return nil
}
