package storetest

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/store"
)

// The upgrade test: a database an older release left behind — its rows
// written at an old schema version — opened by this program, which applies
// the migrations it lacks. Every other test creates its store afresh, where
// the migrations run on empty tables; only this one says that a production
// store with real rows keeps them through an upgrade, and that the upgraded
// store then behaves like a new one.
//
// For each old version v, RunUpgrade creates a database at v with the
// backend's own migration code, writes the rows of upgradeFixture in SQL
// that is valid at v (the columns and tables v has; what it lacks is left
// out, as the old release could not have written it), and creates a
// second database at the current version with the very same rows. It then
// opens the first with the program's code and checks that
//
//   - the schema version is the program's;
//   - every row written is there with its values, no more and no fewer;
//   - what the migrations backfill is right: frontier counts equal the
//     rows (FrontierStats), fences carry the time of the migration;
//   - the two databases are alike, table by table, row by row, and so are
//     their schemas (indexes, triggers), apart from the backfilled times;
//   - the same sequence of store operations (claims, a processing group,
//     completions, releases, refresh claims, fences, host slots and holds,
//     reads of every kind) gives the same results on both and leaves the
//     two databases alike again, and the results on the rows that came
//     through the upgrade are the ones the fixture implies.
//
// RunUpgrade starts once from each version, 1 to the current one, and
// reads what each version's schema has from the database itself, so a new
// migration is covered as soon as it is appended. The run from the current
// version, where no migration runs, checks the fixture and the harness
// themselves, and that the fixture fills every column of every table: a
// migration that adds one fails it until upgradeFixture writes it too (the
// older runs then leave it out, as their releases did).

// UpgradeBackend is a backend as RunUpgrade tests its migrations.
type UpgradeBackend struct {
	// Current is the program's schema version: how many migrations it has.
	Current int
	// Create makes a new, empty database at schema version v (the
	// backend's first v migrations applied by its own migration code,
	// nothing else) and arranges for it to be removed when t ends.
	Create func(t *testing.T, v int) UpgradeDB
	// The backend's catalog, as queries returning one column: Tables the
	// database's tables, Columns a table's (? is its name) in order,
	// Version the schema version it records, and Schema its objects —
	// tables' columns with types and defaults, indexes, triggers,
	// sequences — one row each, written so that they do not depend on
	// where the database is: two databases' compare equal when their
	// schemas are alike.
	Tables, Columns, Version, Schema string
	// Skip are tables the comparison of two databases leaves out: the
	// migration log (its times differ), and tables whose rows differ in
	// form but not in meaning between two stores with the same history
	// (PostgreSQL's frontier_counts deltas, compared through FrontierStats
	// instead).
	Skip []string
	// AfterFill is SQL run after the fixture's rows are written, to leave
	// what writing them through the store would have left besides
	// (PostgreSQL: frontier_seq past the rows' seq); "" for none.
	AfterFill string
}

// UpgradeDB is one database of the backend under test, which RunUpgrade
// reads and writes in SQL directly, before and after the store opens it.
type UpgradeDB interface {
	// Exec runs one statement; ? marks its arguments.
	Exec(ctx context.Context, query string, args ...any) error
	// Query returns every row of query (? marks its arguments), each value
	// as the driver scans it into an any.
	Query(ctx context.Context, query string, args ...any) ([][]any, error)
	// Open opens the database with the program's own Open, which applies
	// the migrations it lacks, and arranges for the store to be closed
	// when t ends.
	Open(t *testing.T) store.Store
}

// catalog is a database with its backend's catalog queries.
type catalog struct {
	UpgradeDB
	b UpgradeBackend
}

// list runs a query of one column and returns its values as text.
func (c catalog) list(t *testing.T, q string, args ...any) []string {
	t.Helper()
	rows, err := c.Query(t.Context(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r...)
	}
	return out
}

// version reads the schema version the database records.
func (c catalog) version(t *testing.T) string {
	t.Helper()
	return strings.Join(c.list(t, c.b.Version), ",")
}

// RunUpgrade runs the upgrade test (see above) from every schema version
// from 1 to b.Current.
func RunUpgrade(t *testing.T, b UpgradeBackend) {
	for v := 1; v <= b.Current; v++ {
		t.Run(fmt.Sprintf("from_v%d", v), func(t *testing.T) { testUpgradeFrom(t, b, v) })
	}
	t.Run("old_release_reset", func(t *testing.T) { testOldReleaseReset(t, b) })
}

// clockColumns are the columns the store fills from the wall clock rather
// than from its callers' times: two stores given the same operations
// differ there, and nowhere else.
var clockColumns = []string{"topics.created_at", "models.created_at", "crawls.updated_at", "fences.raised_at"}

// testUpgradeFrom is the upgrade test from version v.
func testUpgradeFrom(t *testing.T, b UpgradeBackend, v int) {
	old := catalog{b.Create(t, v), b}
	if got := old.version(t); got != strconv.Itoa(v) {
		t.Fatalf("database created at version %d records version %s", v, got)
	}
	have := schemaOf(t, old)
	written := fillFixture(t, old, have, b.AfterFill)
	if v == b.Current {
		checkFixtureComplete(t, have, written, b.Skip)
	}

	before := time.Now()
	s := old.Open(t)
	after := time.Now()
	if got := old.version(t); got != strconv.Itoa(b.Current) {
		t.Fatalf("after opening: schema version %s, want %d", got, b.Current)
	}
	checkWritten(t, old, written)
	checkFenceBackfill(t, old, have, before, after)
	checkFrontierCounts(t, "upgraded", s, old)

	// The reference: a database created at the current version, holding
	// the same rows (only what version v could hold, so that the columns
	// v lacked have the values a new column starts with in both).
	fresh := catalog{b.Create(t, b.Current), b}
	fillFixture(t, fresh, have, b.AfterFill)
	fs := fresh.Open(t)
	checkFrontierCounts(t, "fresh", fs, fresh)
	var backfilled []string
	if _, ok := have["fences"]; ok && !have.has("fences", "raised_at") {
		backfilled = append(backfilled, "fences.raised_at") // the migration's time: checkFenceBackfill
	}
	compareSchemas(t, old, fresh)
	compareDBs(t, "after the upgrade", old, fresh, b.Skip, backfilled)

	got := exerciseUpgraded(t, "upgraded", s, old, have)
	want := exerciseUpgraded(t, "fresh", fs, fresh, have)
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			g, w = aroundDiff(g, w)
			t.Errorf("operation %d differs from a fresh store's:\n upgraded: %s\n fresh:    %s", i, g, w)
		}
	}
	compareDBs(t, "after the same operations", old, fresh, b.Skip, clockColumns)
}

// aroundDiff shortens two differing lines (a result may list every page of
// a crawl) to where they start to differ, keeping the operation's name.
func aroundDiff(a, b string) (string, string) {
	n := 0
	for n < min(len(a), len(b)) && a[n] == b[n] {
		n++
	}
	name := min(strings.Index(a, ":")+1, n)
	from := max(name, n-60)
	cut := func(s string) string {
		s = s[:name] + " …" + s[from:]
		if len(s) > 300 {
			s = s[:300] + "…"
		}
		return s
	}
	if from == name {
		return a, b
	}
	return cut(a), cut(b)
}

// dbSchema is a database's tables, each with its columns in order.
type dbSchema map[string][]string

// has reports whether table has column col.
func (d dbSchema) has(table, col string) bool { return slices.Contains(d[table], col) }

// schemaOf reads the tables and columns of db.
func schemaOf(t *testing.T, db catalog) dbSchema {
	t.Helper()
	out := dbSchema{}
	for _, tb := range db.list(t, db.b.Tables) {
		out[tb] = db.list(t, db.b.Columns, tb)
	}
	return out
}

// fxRow is one row of the fixture: its table and its column values.
type fxRow struct {
	table string
	cols  []string
	vals  []any
}

// fx builds an fxRow from column, value pairs.
func fx(table string, kv ...any) fxRow {
	r := fxRow{table: table}
	for i := 0; i < len(kv); i += 2 {
		r.cols = append(r.cols, kv[i].(string))
		r.vals = append(r.vals, kv[i+1])
	}
	return r
}

// fillFixture writes the fixture's rows into db in SQL valid for the
// schema have: rows of absent tables are left out, and so are absent
// columns (which an older release could not have written). It returns the
// rows as written.
func fillFixture(t *testing.T, db UpgradeDB, have dbSchema, afterFill string) []fxRow {
	t.Helper()
	var written []fxRow
	for _, r := range upgradeFixture() {
		if _, ok := have[r.table]; !ok {
			continue
		}
		w := fxRow{table: r.table}
		for i, c := range r.cols {
			if have.has(r.table, c) {
				w.cols = append(w.cols, c)
				w.vals = append(w.vals, r.vals[i])
			}
		}
		q := `INSERT INTO ` + w.table + ` (` + strings.Join(w.cols, ", ") + `) VALUES (` +
			strings.TrimSuffix(strings.Repeat("?, ", len(w.cols)), ", ") + `)`
		if err := db.Exec(t.Context(), q, w.vals...); err != nil {
			t.Fatalf("fixture row of %s: %s: %v", w.table, q, err)
		}
		written = append(written, w)
	}
	if afterFill != "" {
		if err := db.Exec(t.Context(), afterFill); err != nil {
			t.Fatalf("%s: %v", afterFill, err)
		}
	}
	return written
}

// derivedTables are tables the store keeps from others' rows (by
// triggers: frontier counts, the last model versions, each host's best
// queued entry, the last generation of a deleted term sample) rather than
// from its callers' writes: the fixture leaves
// them to the database. They are still compared after an upgrade (but for
// the backend's Skip), so a migration's backfill of one must match what
// the triggers of a fresh database kept.
var derivedTables = []string{"frontier_counts", "model_versions", "frontier_hosts", "term_sample_gens"}

// checkFixtureComplete fails unless the fixture wrote every column of every
// table of the current schema (but for skip and derivedTables): a new
// migration's columns must have rows that carry them through the later
// upgrades.
func checkFixtureComplete(t *testing.T, have dbSchema, written []fxRow, skip []string) {
	t.Helper()
	filled := map[string]bool{}
	for _, r := range written {
		for _, c := range r.cols {
			filled[r.table+"."+c] = true
		}
	}
	for table, cols := range have {
		if slices.Contains(skip, table) || slices.Contains(derivedTables, table) {
			continue
		}
		for _, c := range cols {
			if !filled[table+"."+c] {
				t.Errorf("the upgrade fixture writes no %s.%s: add it to upgradeFixture", table, c)
			}
		}
	}
}

// canon renders a value the way both drivers' values compare: integers of
// any width alike, floats marked as such, text quoted, bytes in hex.
func canon(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int:
		return strconv.Itoa(x)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return strconv.Quote(x)
	case []byte:
		return "x'" + hex.EncodeToString(x) + "'"
	default:
		return fmt.Sprintf("%T(%v)", v, v)
	}
}

// canonRow renders a row as "col=value" fields.
func canonRow(cols []string, vals []any) []string {
	fields := make([]string, len(cols))
	for i, c := range cols {
		fields[i] = c + "=" + canon(vals[i])
	}
	return fields
}

// sortRows sorts rendered rows, and so makes two tables' rows comparable
// whatever order the database returned them in.
func sortRows(rows [][]string) {
	slices.SortFunc(rows, func(a, b []string) int { return slices.Compare(a, b) })
}

// equalRows reports whether two sorted lists of rendered rows are equal.
func equalRows(a, b [][]string) bool {
	return slices.EqualFunc(a, b, func(x, y []string) bool { return slices.Equal(x, y) })
}

// selectRows returns table's rows over cols, rendered by canonRow, sorted.
func selectRows(t *testing.T, db UpgradeDB, table string, cols []string) [][]string {
	t.Helper()
	rows, err := db.Query(t.Context(), `SELECT `+strings.Join(cols, ", ")+` FROM `+table)
	if err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = canonRow(cols, r)
	}
	sortRows(out)
	return out
}

// diffRows describes how the sorted rows got differ from want: a row whose
// first two fields (the key, in the tables' column order) match a row of
// the other side is shown by the fields that differ, any other in full; at
// most a few of each.
func diffRows(got, want [][]string) string {
	var extra, missing [][]string
	for i, j := 0, 0; i < len(got) || j < len(want); {
		var c int
		switch {
		case j == len(want):
			c = -1
		case i == len(got):
			c = 1
		default:
			c = slices.Compare(got[i], want[j])
		}
		switch {
		case c < 0:
			extra = append(extra, got[i])
			i++
		case c > 0:
			missing = append(missing, want[j])
			j++
		default:
			i++
			j++
		}
	}
	key := func(r []string) string { return strings.Join(r[:min(2, len(r))], " ") }
	var b strings.Builder
	shown := 0
	for _, e := range extra {
		if shown++; shown > 4 {
			break
		}
		k := slices.IndexFunc(missing, func(m []string) bool { return key(m) == key(e) && len(m) == len(e) })
		if k < 0 {
			fmt.Fprintf(&b, "\n  only here:  %s", strings.Join(e, " "))
			continue
		}
		fmt.Fprintf(&b, "\n  %s:", key(e))
		for f := range e {
			if e[f] != missing[k][f] {
				fmt.Fprintf(&b, " %s here, %s there;", e[f], missing[k][f])
			}
		}
		missing = slices.Delete(missing, k, k+1)
	}
	for _, m := range missing {
		if shown++; shown > 8 {
			break
		}
		fmt.Fprintf(&b, "\n  only there: %s", strings.Join(m, " "))
	}
	return b.String()
}

// checkWritten checks that every table the fixture wrote holds exactly the
// rows written, with their values, in the columns written.
func checkWritten(t *testing.T, db UpgradeDB, written []fxRow) {
	t.Helper()
	byTable := map[string][]fxRow{}
	var order []string
	for _, r := range written {
		if _, ok := byTable[r.table]; !ok {
			order = append(order, r.table)
		}
		byTable[r.table] = append(byTable[r.table], r)
	}
	for _, table := range order {
		rows := byTable[table]
		var want [][]string
		for _, r := range rows {
			want = append(want, canonRow(r.cols, r.vals))
		}
		sortRows(want)
		got := selectRows(t, db, table, rows[0].cols)
		if !equalRows(got, want) {
			t.Errorf("table %s after the upgrade: %d rows, %d written; they differ:%s", table, len(got), len(want), diffRows(got, want))
		}
	}
}

// checkFenceBackfill checks the fences migration's backfill: a fence
// written before its table had raised_at counts as raised by the migration
// (so PruneFences keeps it while the attempt it fences may still run).
// The time is the database's clock (SQLite's in whole seconds; a
// PostgreSQL server's may be another machine's), hence the minute of
// slack: what matters is that it is neither 0 nor a time long past.
func checkFenceBackfill(t *testing.T, db UpgradeDB, have dbSchema, before, after time.Time) {
	t.Helper()
	if _, ok := have["fences"]; !ok || have.has("fences", "raised_at") {
		return
	}
	rows, err := db.Query(t.Context(), `SELECT name, raised_at FROM fences`)
	if err != nil {
		t.Fatalf("read fences: %v", err)
	}
	if len(rows) == 0 {
		t.Fatal("no fences to check the backfill of raised_at on")
	}
	lo, hi := before.Add(-time.Minute).UnixNano(), after.Add(time.Minute).UnixNano()
	for _, r := range rows {
		at, ok := asInt(r[1])
		if !ok || at < lo || at > hi {
			t.Errorf("fence %v: raised_at %v after the upgrade, want the migration's time (%d..%d)", r[0], r[1], lo, hi)
		}
	}
}

// asInt reads an integer column value of either driver.
func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int:
		return int64(x), true
	}
	return 0, false
}

// rowStats counts topic's frontier rows by state, as FrontierStats must.
func rowStats(t *testing.T, db UpgradeDB, topic string) store.FrontierStats {
	t.Helper()
	rows, err := db.Query(t.Context(), `SELECT state, COUNT(*) FROM frontier WHERE topic = ? GROUP BY state`, topic)
	if err != nil {
		t.Fatalf("count frontier rows: %v", err)
	}
	var st store.FrontierStats
	for _, r := range rows {
		n, _ := asInt(r[1])
		switch r[0] {
		case store.StateQueued:
			st.Queued = int(n)
		case store.StateClaimed:
			st.Claimed = int(n)
		case store.StateDone:
			st.Done = int(n)
		default:
			t.Errorf("frontier of %s: %d rows in state %v", topic, n, r[0])
		}
	}
	return st
}

// checkFrontierCounts checks that FrontierStats agrees with the rows for
// every topic of the fixture.
func checkFrontierCounts(t *testing.T, label string, s store.Store, db UpgradeDB) {
	t.Helper()
	for _, topic := range []string{fxGo, fxRust} {
		got, err := s.FrontierStats(t.Context(), topic)
		if want := rowStats(t, db, topic); err != nil || got != want {
			t.Errorf("%s: FrontierStats(%s) = %+v, %v; the rows say %+v", label, topic, got, err, want)
		}
	}
}

// compareSchemas checks that the upgraded database's schema is the fresh
// one's.
func compareSchemas(t *testing.T, old, fresh catalog) {
	t.Helper()
	a, b := old.list(t, old.b.Schema), fresh.list(t, fresh.b.Schema)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		var ra, rb [][]string
		for _, x := range a {
			ra = append(ra, []string{x})
		}
		for _, x := range b {
			rb = append(rb, []string{x})
		}
		t.Errorf("the upgraded schema differs from a fresh one's:%s", diffRows(ra, rb))
	}
}

// compareDBs checks that two databases hold the same tables, columns and
// rows, leaving out the tables skip names and the columns ("table.column")
// of except.
func compareDBs(t *testing.T, when string, a, b catalog, skip, except []string) {
	t.Helper()
	ta, tb := schemaOf(t, a), schemaOf(t, b)
	for table, cols := range ta {
		if slices.Contains(skip, table) {
			continue
		}
		if _, ok := tb[table]; !ok {
			t.Errorf("%s: table %s is only in the upgraded database", when, table)
			continue
		}
		var list []string
		for _, c := range cols {
			if !tb.has(table, c) {
				t.Errorf("%s: column %s.%s is only in the upgraded database", when, table, c)
			} else if !slices.Contains(except, table+"."+c) {
				list = append(list, c)
			}
		}
		ra, rb := selectRows(t, a, table, list), selectRows(t, b, table, list)
		if !equalRows(ra, rb) {
			t.Errorf("%s: table %s differs between the upgraded (%d rows) and a fresh database (%d):%s",
				when, table, len(ra), len(rb), diffRows(ra, rb))
		}
	}
	for table := range tb {
		if _, ok := ta[table]; !ok && !slices.Contains(skip, table) {
			t.Errorf("%s: table %s is only in the fresh database", when, table)
		}
	}
	// Columns only in b are reported from b's side too.
	for table, cols := range tb {
		for _, c := range cols {
			if _, ok := ta[table]; ok && !ta.has(table, c) {
				t.Errorf("%s: column %s.%s is only in the fresh database", when, table, c)
			}
		}
	}
}
