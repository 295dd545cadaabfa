package index

import (
	"maps"
	"reflect"
	"strings"
	"testing"

	"focuscrawl/internal/index/indextest"
)

// searchModeSegmenter is the shared stand-in for gojieba's search mode.
type searchModeSegmenter = indextest.SearchModeSegmenter

var searchMode = searchModeSegmenter{
	"中华人民共和国": "中华 华人 人民 共和 共和国 中华人民共和国",
	"人民共和国":   "人民 共和 共和国 人民共和国",
	"共和国":     "共和 共和国",
	"计算机科学":   "计算 算机 科学 计算机 计算机科学",
	"计算机":     "计算 算机 计算机",
	"一二三四五":   "一二 一二三四五", // its shorter words leave 三四五 uncovered
	"中华民族":    "中华 民族 中华民族",
}

// TestHanWords: a Han term whose shorter words cover it is matched whole
// or by those words (pages hold 人民共和国 inside 中华人民共和国, which has
// no token 人民共和国), and the shorter words are not required apart; a
// term they do not cover stays a plain term.
func TestHanWords(t *testing.T) {
	for _, tt := range []struct {
		query string
		plain []string
		words []HanWord
	}{
		{"人民共和国 成立", []string{"成立"}, []HanWord{{"人民共和国", []string{"人民", "共和国"}}}},
		{"中华人民共和国", nil, []HanWord{{"中华人民共和国", []string{"中华", "华人", "人民", "共和国"}}}},
		// 计算机, itself such a word, is part of the longer one's match.
		{"计算机科学", nil, []HanWord{{"计算机科学", []string{"计算", "算机", "科学"}}}},
		{"计算机", nil, []HanWord{{"计算机", []string{"计算", "算机"}}}},
		// Typed apart, a shorter word is still implied by the longer one.
		{"人民 人民共和国", nil, []HanWord{{"人民共和国", []string{"人民", "共和国"}}}},
		{"一二三四五", []string{"一二", "一二三四五"}, nil},
		{"共和国", []string{"共和", "共和国"}, nil},
		{"e-mail 大学", []string{"e-mail", "大学"}, nil},
	} {
		terms, _, err := ParseQuery(tt.query, searchMode)
		if err != nil {
			t.Fatal(err)
		}
		plain, words := HanWords(terms, searchMode)
		if !reflect.DeepEqual(plain, tt.plain) || !reflect.DeepEqual(words, tt.words) {
			t.Errorf("HanWords(%s) = %q, %q; want %q, %q", tt.query, plain, words, tt.plain, tt.words)
		}
	}
}

// TestPhraseTokens: a Han phrase's tokens without, where a word follows
// its shorter words, the word if they cover it and else those words, and
// of them only the fewest; only the occurrences written for the word go,
// and repeats stay (Elasticsearch matches 讨论讨论 as two tokens).
// NearTokens has each once.
func TestPhraseTokens(t *testing.T) {
	seg := searchModeSegmenter{"联合国": "联合 联合国", "北京大学": "北京 大学 北京大学"}
	maps.Copy(seg, searchMode)
	for _, tt := range []struct{ phrase, want, near string }{
		{"中华 华人 人民 共和 共和国 中华人民共和国", "中华 华人 人民 共和国", "中华 华人 人民 共和国"},
		{"人民 共和 共和国 人民共和国 成立", "人民 共和国 成立", "人民 共和国 成立"},
		{"计算 算机 科学 计算机 计算机科学", "计算 算机 科学", "计算 算机 科学"},
		{"联合 联合国", "联合国", "联合国"},
		{"共和 共和 共和国", "共和 共和国", "共和 共和国"},
		{"大学 读书", "大学 读书", "大学 读书"},
		{"讨论 讨论", "讨论 讨论", "讨论"},
		{"北京 大学 北京大学 读书", "北京 大学 读书", "北京 大学 读书"},
		{"一二 一二三四五", "一二三四五", "一二三四五"},
	} {
		got := phraseTokens(strings.Fields(tt.phrase), seg)
		if strings.Join(got, " ") != tt.want {
			t.Errorf("phraseTokens(%s) = %s, want %s", tt.phrase, strings.Join(got, " "), tt.want)
		}
		if near := strings.Join(NearTokens(got), " "); near != tt.near {
			t.Errorf("NearTokens(%s) = %s, want %s", tt.want, near, tt.near)
		}
	}
}
