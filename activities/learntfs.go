package activities

import (
	"container/list"
	"sync"
)

// learnTFCap bounds the training pages' term counts a worker keeps between
// learning rounds (learnTFs): one crawl's training set (maxLearnPages). A
// page's term counts take 1–15 kB (Debian manuals: Octave's short pages
// 0.9 kB, GIMP's 4.5–4.8, the C++ reference's 5.3, the Debian handbook's
// 15.3), so 5–75 MB while a learning filter runs; nothing otherwise.
const learnTFCap = 5_000

// learnTFs keeps the term counts of learning filters' training pages
// between rounds, least recently used out first. A round reads the
// crawl's first maxLearnPages judged pages again, every Every() judged
// pages (20 for sample-rank); each read their parse records, which made a
// filter's rounds together O(pages²) up to 5,000 pages — about 600,000
// parse records for a 5,000-page crawl. A page's term counts are its parse
// record's, fixed by its content (the key holds its content hash: a page
// fetched again with other content is another entry). nil counts (a page
// without a parse record) are kept too.
type learnTFs struct {
	mu  sync.Mutex
	ll  *list.List // front: most recently used
	m   map[learnTFKey]*list.Element
	cap int // 0: learnTFCap
}

type learnTFKey struct{ topic, urlHash, contentHash string }

type learnTFEntry struct {
	key learnTFKey
	tf  map[string]int
}

// get returns the term counts kept for k.
func (c *learnTFs) get(k learnTFKey) (map[string]int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		return nil, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*learnTFEntry).tf, true
}

// put keeps tf for k, dropping the least recently used beyond the cap.
func (c *learnTFs) put(k learnTFKey, tf map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m, c.ll = map[learnTFKey]*list.Element{}, list.New()
	}
	if e, ok := c.m[k]; ok {
		e.Value.(*learnTFEntry).tf = tf
		c.ll.MoveToFront(e)
		return
	}
	c.m[k] = c.ll.PushFront(&learnTFEntry{k, tf})
	limit := c.cap
	if limit <= 0 {
		limit = learnTFCap
	}
	for c.ll.Len() > limit {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.m, old.Value.(*learnTFEntry).key)
	}
}
