// Package yamlerr makes YAML syntax errors say what a person must change.
// Topic files and the config file are written by hand, and a tab in a
// line's indentation — invisible in most editors, inserted by many — is
// the commonest mistake; yaml.v3 reports it as "found character that
// cannot start any token", or names the line before it.
package yamlerr

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
)

// lineRE finds the line of the two syntax errors yaml.v3 gives for a tab
// in a block's indentation (a tab inside a flow collection, "[...]", is
// white space to it, and another error there has another cause).
var lineRE = regexp.MustCompile(`^yaml: line (\d+): (?:found character that cannot start any token|found a tab character that violates indentation)`)

// Explain returns err, a yaml.v3 error from decoding data, with a hint
// when it is one of the errors a tab causes (lineRE) at a line of data, or
// the line after it (where
// yaml.v3 reports a tab that "violates indentation" one line early),
// indented with a tab: the hint names that line. Other errors come back
// as they are.
func Explain(data []byte, err error) error {
	if err == nil {
		return nil
	}
	m := lineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	n, convErr := strconv.Atoi(m[1])
	if convErr != nil {
		return err
	}
	for _, line := range []int{n, n + 1} {
		if tabIndented(data, line) {
			return fmt.Errorf("%w (line %d is indented with a tab: YAML indents with spaces only)", err, line)
		}
	}
	return err
}

// tabIndented reports whether line n (1-based) of data has a tab in the
// white space it starts with.
func tabIndented(data []byte, n int) bool {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return false
		}
		data = data[j+1:]
	}
	for _, c := range data {
		switch c {
		case '\t':
			return true
		case ' ':
			continue
		}
		return false
	}
	return false
}
