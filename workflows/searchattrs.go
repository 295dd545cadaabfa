package workflows

import "go.temporal.io/sdk/temporal"

// Custom search attributes of focuscrawl workflows. They must be registered
// on the Temporal namespace before a workflow may set them: `make up` does it
// on the dev server (scripts/lib.sh), production clusters need
//
//	temporal operator search-attribute create --name FocuscrawlTopic --type Keyword
//	temporal operator search-attribute create --name FocuscrawlKind  --type Keyword
//
// In the Temporal UI (or `temporal workflow list --query`) they find a
// topic's crawls: FocuscrawlTopic = "roses" AND FocuscrawlKind = "refresh".
var (
	// SearchAttrTopic holds the topic name.
	SearchAttrTopic = temporal.NewSearchAttributeKeyKeyword("FocuscrawlTopic")
	// SearchAttrKind holds the workflow kind: KindCrawl or KindRefresh.
	SearchAttrKind = temporal.NewSearchAttributeKeyKeyword("FocuscrawlKind")
)

// Values of SearchAttrKind.
const (
	KindCrawl   = "crawl"
	KindRefresh = "refresh"
)

// MemoTopicVersion is the memo key that records the topic version a
// workflow runs with (shown in the UI's memo panel).
const MemoTopicVersion = "topic_version"

// SearchAttributes returns the search attributes of a focuscrawl workflow
// of the given kind and topic.
func SearchAttributes(kind, topicName string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(SearchAttrTopic.ValueSet(topicName), SearchAttrKind.ValueSet(kind))
}
