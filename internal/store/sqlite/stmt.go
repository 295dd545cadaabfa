package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStmts bounds a pool's statement cache. The store's statements are
// a fixed set of texts; the bound only guards against a caller building SQL
// with a variable shape (an IN list per call), whose texts are then
// prepared per call as before rather than piling up.
const maxCachedStmts = 512

// pool is a database/sql pool whose statements are prepared once per
// connection and reused. Preparing is SQLite's parser and code generator on
// every call — a profile of the streaming fetch path put it at 13% of the
// worker's CPU — while a cached statement only binds and steps. It has the
// methods of *sql.DB the store uses, so call sites read as before.
type pool struct {
	*sql.DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
	// pending are statements a write transaction met uncached. The write
	// pool has one connection, which the transaction holds, so they are
	// prepared on the pool only after it ends (preparePending).
	pending map[string]bool
}

func newPool(db *sql.DB) *pool {
	return &pool{DB: db, stmts: map[string]*sql.Stmt{}, pending: map[string]bool{}}
}

// cached returns the cached statement for q, or nil after noting q for
// preparePending.
func (p *pool) cached(q string) *sql.Stmt {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.stmts[q]
	if st == nil && len(p.stmts)+len(p.pending) < maxCachedStmts {
		p.pending[q] = true
	}
	return st
}

// preparePending prepares the statements write transactions noted, once
// the connection is free again. A statement that fails to prepare is left
// uncached: the transaction that used it reported the error.
func (p *pool) preparePending(ctx context.Context) {
	p.mu.Lock()
	var todo []string
	for q := range p.pending {
		todo = append(todo, q)
		delete(p.pending, q)
	}
	p.mu.Unlock()
	// Preparing waits for the connection, which a transaction may hold
	// while it asks the cache: never with p.mu held.
	for _, q := range todo {
		st, err := p.DB.PrepareContext(ctx, q)
		if err != nil {
			continue
		}
		p.mu.Lock()
		if p.stmts[q] == nil {
			p.stmts[q], st = st, nil
		}
		p.mu.Unlock()
		if st != nil {
			st.Close() // another writer prepared it meanwhile
		}
	}
}

// stmt returns the cached statement for q, preparing it on first use; nil
// (and no error) when the cache is full.
func (p *pool) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.stmts[q]; ok {
		return st, nil
	}
	if len(p.stmts) >= maxCachedStmts {
		return nil, nil
	}
	st, err := p.DB.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	p.stmts[q] = st
	return st, nil
}

// QueryContext runs a query through the statement cache.
func (p *pool) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := p.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return p.DB.QueryContext(ctx, q, args...)
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext runs a one-row query through the statement cache.
func (p *pool) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := p.stmt(ctx, q)
	if err != nil || st == nil {
		// The uncached call reports the same preparation error in its Row.
		return p.DB.QueryRowContext(ctx, q, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// Close closes the cached statements, then the pool.
func (p *pool) Close() error {
	p.mu.Lock()
	for q, st := range p.stmts {
		st.Close()
		delete(p.stmts, q)
	}
	p.mu.Unlock()
	return p.DB.Close()
}

// wtx is a write transaction whose statements come from the write pool's
// cache (bound to the transaction's connection, where database/sql reuses
// the statement already prepared on it).
type wtx struct {
	tx *sql.Tx
	p  *pool
}

// PrepareContext returns q bound to the transaction, from the cache (or
// prepared on the transaction's connection the first time).
func (t *wtx) PrepareContext(ctx context.Context, q string) (*sql.Stmt, error) {
	if st := t.p.cached(q); st != nil {
		return t.tx.StmtContext(ctx, st), nil
	}
	return t.tx.PrepareContext(ctx, q)
}

// ExecContext runs a statement in the transaction.
func (t *wtx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, err := t.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// QueryContext runs a query in the transaction.
func (t *wtx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := t.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext runs a one-row query in the transaction.
func (t *wtx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := t.PrepareContext(ctx, q)
	if err != nil {
		return t.tx.QueryRowContext(ctx, q, args...)
	}
	return st.QueryRowContext(ctx, args...)
}
