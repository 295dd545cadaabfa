package topic

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"focuscrawl/internal/suggest"
)

// unknownFieldRE matches yaml.v3's message for a field a struct does not
// have (the decoder runs with KnownFields).
var unknownFieldRE = regexp.MustCompile(`^(line \d+: )?field (\S+) not found in type ([\w.]+)$`)

// typeErrorRE matches yaml.v3's message for a value of the wrong type
// ("line 4: cannot unmarshal !!str `10` into int").
var typeErrorRE = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+) (`.*`|)\\s*into (\\S+)$")

// goTypeWords says what a Go type yaml.v3 names is in a topic file's words.
func goTypeWords(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a mapping"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "a whole number"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "time."):
		return "a duration such as 10m"
	}
	return "a mapping" // the topic's own structs
}

// sections maps the Go type names yaml.v3 reports ("topic.Limits") to the
// section of the topic file they decode (the first, for a type used in
// several) and the type itself; fieldPaths maps each field name to every
// full path it has ("max_pages" → ["limits.max_pages"]): a type used in two
// places (topic.Spec: strategy.page_filter and strategy.link_predictor)
// gives a path for each.
var sections, fieldPaths = func() (map[string]sectionInfo, map[string][]string) {
	secs, paths := map[string]sectionInfo{}, map[string][]string{}
	var walk func(t reflect.Type, path string, depth int)
	walk = func(t reflect.Type, path string, depth int) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if depth > 8 || t.Kind() != reflect.Struct || t.PkgPath() != reflect.TypeFor[Topic]().PkgPath() {
			return
		}
		if _, seen := secs[t.String()]; !seen {
			secs[t.String()] = sectionInfo{path: path, typ: t}
		}
		for _, f := range reflect.VisibleFields(t) {
			name := yamlName(f)
			if name == "" {
				continue
			}
			sub := name
			if path != "" {
				sub = path + "." + name
			}
			paths[name] = append(paths[name], sub)
			walk(f.Type, sub, depth+1)
		}
	}
	walk(reflect.TypeFor[Topic](), "", 0)
	return secs, paths
}()

type sectionInfo struct {
	path string // "" for the top level, "limits", "strategy.expand", ...
	typ  reflect.Type
}

// yamlName is a struct field's key in YAML, "" for fields YAML skips.
func yamlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if tag == "-" {
		return ""
	}
	if tag == "" {
		return strings.ToLower(f.Name)
	}
	return tag
}

// friendlyYAMLError rewrites yaml.v3's unknown-field errors in the topic
// file's own words: "line 6: field keyword not found in type topic.Topic"
// named a Go type a user never sees; it becomes `line 6: unknown field
// "keyword" (did you mean "keywords"?)`, with the section for a nested one
// and the section's fields when no field is a typo away. Other errors are
// returned as they are.
//
// A value of the wrong type ("line 4: cannot unmarshal !!str `10` into
// int") is said with its field when fields tells which value on the line
// it is (checkShape; else as yaml.v3 says it):
// "limits.max_pages (line 4): `10` is a string; it must be a whole number".
func friendlyYAMLError(err error, fields lineFields) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	// An anchored value with aliases is one line's value for several
	// fields; the errors about it come in document order, as its fields.
	errorsOf := map[string]int{}
	for _, msg := range te.Errors {
		errorsOf[msg]++
	}
	seen := map[string]int{}
	msgs := make([]string, len(te.Errors))
	for i, msg := range te.Errors {
		msgs[i] = msg
		if m := typeErrorRE.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			k := seen[msg]
			seen[msg]++
			if f, where := errorField(fields.of(line, m[2], strings.Trim(m[3], "`"), m[4]), errorsOf[msg], k, line); f != "" {
				if where == "" {
					where = fmt.Sprintf("line %d", line)
				}
				val := m[3]
				if val == "" {
					val = "the value"
				}
				kind := map[string]string{"str": "a string", "int": "a whole number", "float": "a number",
					"bool": "true or false", "seq": "a list", "map": "a mapping", "null": "null"}[m[2]]
				if kind == "" {
					kind = "!!" + m[2]
				}
				want := goTypeWords(m[4])
				if kind == want || outOfRange(strings.Trim(m[3], "`"), kind, want) {
					// A whole number too large for the field's type: yaml.v3
					// says "cannot unmarshal !!int", which read as "is a
					// whole number; it must be a whole number".
					msgs[i] = fmt.Sprintf("%s (%s): %s is out of range", f, where, val)
					continue
				}
				msgs[i] = fmt.Sprintf("%s (%s): %s is %s; it must be %s", f, where, val, kind, want)
				continue
			}
		}
		m := unknownFieldRE.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		sec, ok := sections[m[3]]
		if !ok {
			continue
		}
		var fields []string
		for _, f := range reflect.VisibleFields(sec.typ) {
			if name := yamlName(f); name != "" {
				fields = append(fields, name)
			}
		}
		where := ""
		if sec.path != "" {
			where = " in " + sec.path
		}
		hint := "fields: " + strings.Join(fields, ", ")
		if s := suggest.Closest(m[2], fields, 2); s != "" {
			hint = fmt.Sprintf("did you mean %q?", s)
		} else if elsewhere := fieldElsewhere(m[2], sec.path); elsewhere != "" {
			hint = fmt.Sprintf("did you mean %q?", elsewhere)
		}
		msgs[i] = fmt.Sprintf("%sunknown field %q%s (%s)", m[1], m[2], where, hint)
	}
	return errors.New(strings.Join(msgs, "\n  "))
}

// fieldElsewhere is the full path of a field named name in another section
// than the one at path ("" for the top level), when exactly one other
// section has it: a top-level "max_pages:" is limits.max_pages (a new
// user's trial got only the top level's field list). "" when none or
// several do.
func fieldElsewhere(name, path string) string {
	var found []string
	for _, full := range fieldPaths[name] {
		if full != name && full != path+"."+name {
			found = append(found, full)
		}
	}
	if len(found) != 1 {
		return ""
	}
	return found[0]
}

// errorField is the field the k-th of n identical type errors is about,
// among the values that fit it (lineFields.of), those whose field's type
// is known to be the error's first (a value inside a type that decodes
// itself, a strategy's parameters, has none): the only field they have,
// else the k-th value when there is one per error; "" when that cannot be
// told. where is "line L: *name, anchored on line A" for an alias's value
// ("line L: *outer, line M: *inner, anchored on line A" through nested
// aliases; "" otherwise): yaml.v3 gives the anchor's line, line.
func errorField(fit []lineField, n, k, line int) (field, where string) {
	var typed []lineField
	for _, c := range fit {
		if c.typ != "" {
			typed = append(typed, c)
		}
	}
	for _, cands := range [][]lineField{typed, fit} {
		var c lineField
		switch {
		case len(cands) == 0:
			continue
		case len(cands) == n:
			c = cands[k]
		case !slices.ContainsFunc(cands, func(f lineField) bool { return f.field != cands[0].field }):
			c = cands[0]
		default:
			continue
		}
		if c.via != "" {
			where = fmt.Sprintf("%s, anchored on line %d", c.via, line)
		}
		return c.field, where
	}
	return "", ""
}

// outOfRange reports whether val, of YAML kind kind, that yaml.v3 could
// not give a field that wants a number, is one too large for it: a whole
// number past 2^64, which yaml.v3 reads as a float ("is a number; it must
// be a whole number"), or a float past the largest double, which it reads
// as a string. A quoted "10" is a string, and stays one.
func outOfRange(val, kind, want string) bool {
	switch {
	case kind == "a number" && want == "a whole number":
		return wholeRE.MatchString(strings.TrimSuffix(val, "..."))
	case kind == "a string" && want == "a number":
		_, err := strconv.ParseFloat(strings.ReplaceAll(val, "_", ""), 64)
		return errors.Is(err, strconv.ErrRange)
	}
	return false
}

// wholeRE is a YAML decimal integer (underscores allowed).
var wholeRE = regexp.MustCompile(`^[-+]?[0-9][0-9_]*$`)
