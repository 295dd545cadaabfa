// Package searchattr keeps focuscrawl's custom Temporal search attributes
// (FocuscrawlTopic, FocuscrawlKind) usable without making crawls depend on
// them: the worker registers them when it starts, and starters fall back to
// starting workflows without them, with a warning, on a server where they
// are missing — a workflow must never be wedged by an operator convenience.
package searchattr

import (
	"context"
	"fmt"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"focuscrawl/internal/crawlapi"
)

// names are the custom search attributes (crawlapi.SearchAttr*), all of
// type Keyword.
var names = []string{crawlapi.SearchAttrTopic.GetName(), crawlapi.SearchAttrKind.GetName()}

// Ensure registers the missing search attributes on the namespace. It
// returns the names it added; an error means they could not be checked or
// added (e.g. no permission on a production cluster).
func Ensure(ctx context.Context, c client.Client, namespace string) ([]string, error) {
	list, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return nil, fmt.Errorf("list search attributes of namespace %s: %w", namespace, err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	var added []string
	for _, n := range names {
		if _, ok := list.GetCustomAttributes()[n]; !ok {
			missing[n] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
			added = append(added, n)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: missing,
	})
	if err != nil {
		return nil, fmt.Errorf("register search attributes %v on namespace %s: %w", added, namespace, err)
	}
	return added, nil
}

// IsMissing reports whether err is the server refusing an unknown search
// attribute.
func IsMissing(err error) bool {
	return err != nil && strings.Contains(err.Error(), "search attribute")
}
