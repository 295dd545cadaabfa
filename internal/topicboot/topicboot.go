// Package topicboot bootstraps a topic file from a handful of example URLs
// (`search topic bootstrap`): it fetches the pages with the crawler's own
// fetcher (robots.txt, content types and size limits as in a crawl), parses
// them with the crawler's parser and hands them to topic.Bootstrap, which
// derives keywords (seed 003's TopicLib), a description, samples and seeds.
package topicboot

import (
	"context"
	"errors"
	"fmt"

	"focuscrawl/internal/fetch"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/topic"
)

// Fetch fetches and parses the example pages in order. A page that cannot
// be fetched or parsed is an error naming its URL: a topic built from
// fewer examples than the user gave would silently be a different topic.
func Fetch(ctx context.Context, f *fetch.Fetcher, urls []string) ([]topic.ExamplePage, error) {
	var pages []topic.ExamplePage
	var errs []error
	for _, u := range urls {
		resp, err := f.Fetch(ctx, fetch.Request{URL: u})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u, err))
			continue
		}
		doc, err := parse.Parse(resp.FinalURL, resp.Body, parse.Options{})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u, err))
			continue
		}
		pages = append(pages, topic.ExamplePage{URL: resp.URL, Title: doc.Title, Headings: doc.Emphasis, Text: doc.Text})
	}
	return pages, errors.Join(errs...)
}

// Bootstrap fetches the example URLs and writes the topic file's YAML.
func Bootstrap(ctx context.Context, f *fetch.Fetcher, urls []string, name, language string, keywords int, tc topic.TermCounter) ([]byte, error) {
	pages, err := Fetch(ctx, f, urls)
	if err != nil {
		return nil, err
	}
	return topic.Bootstrap(name, language, pages, tc, keywords)
}
