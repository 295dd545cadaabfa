package topicboot

import (
	"testing"
)

// exampleCodeSites are loopback manuals whose pages show code: a stream
// editor's manual in English (prose, with <pre> examples, <code> and
// <kbd>), help pages preformatted throughout as vim's are (one <pre>,
// examples in bold lines), and a text tools manual in Chinese. Their
// examples use the conventional filler names (foo, bar, bla, xxx, hoge)
// and placeholders ({num}, [num], <文件名>).
var exampleCodeSites = map[string]string{
	"/robots.txt": "User-agent: *\nDisallow:\n",
	"/":           `<html><body><a href="/manual/">Manual</a></body></html>`,
	"/manual/": `<html><head><title>Contents - Stream Editor Manual</title></head><body>
		<a href="substitute.html">Substitution</a> <a href="regexp.html">Regular expressions</a> <a href="scripts.html">Scripts</a>
		<p>This manual describes a stream editor.</p></body></html>`,
	"/manual/substitute.html": `<html lang="en"><head><title>Substitution - Stream Editor Manual</title></head><body>
		<p><a href="./">Contents</a> <a href="regexp.html">Regular expressions</a> <a href="scripts.html">Scripts</a></p>
		<h1>The substitute command</h1>
		<p>The substitute command of sed replaces the text a regular expression matches in each input line. Its flags say
		which matches are replaced: the g flag replaces every match in the line, and a number {num} replaces the {num}th match.</p>
		<pre class="example">$ echo foo bar baz | sed 's/foo/qux/'
qux bar baz
$ echo foo foo foo | sed 's/foo/quux/2'
foo quux foo
$ sed 's/hello/world/g' greeting.txt</pre>
		<p>The replacement may refer to the text the regular expression matched with &amp;, and to its groups with \1 to \9:
		a substitute command can reorder the words a regular expression matches. The <code>ignorecase</code> flag matches
		letters of either case; <code>ignorecase</code> applies to the regular expression only.</p>
		<pre>$ echo foobar | sed 's/\(foo\)\(bar\)/\2\1/'</pre>
		<p>Press <kbd>Ctrl</kbd>+<kbd>C</kbd> to stop sed when it waits for input from the terminal.</p></body></html>`,
	"/manual/regexp.html": `<html lang="en"><head><title>Regular expressions - Stream Editor Manual</title></head><body>
		<p><a href="./">Contents</a> <a href="substitute.html">Substitution</a> <a href="scripts.html">Scripts</a></p>
		<h1>Regular expression syntax</h1>
		<p>A regular expression matches text: a dot matches any character, a star repeats the expression before it, and
		brackets match one character of a set. The substitute command and addresses select lines with regular expressions.</p>
		<pre class="example">$ printf 'foo\nfoobar\nbaz\n' | sed -n '/^foo/p'
foo
foobar
$ printf 'bar\nbaz\n' | sed -n '/ba[rz]/p'</pre>
		<p>Extended regular expressions, with sed's -E option, need no backslash before a group or an alternative; the match
		of group [num] is \[num] in the replacement of a substitute command.</p></body></html>`,
	"/manual/scripts.html": `<html><head><title>Scripts - Stream Editor Manual</title></head><body>
		<p><a href="./">Contents</a></p><h1>Scripts</h1><p>A script file holds several commands, one on a line; the editor reads
		it with the -f option. Comments start with a hash sign.</p><pre>$ sed -f script.sed input.txt</pre></body></html>`,

	"/help/": `<html><head><title>Help: index</title></head><body><pre>
<a href="change.html">change.txt</a>	Deleting and changing text
<a href="pattern.html">pattern.txt</a>	Patterns and search commands
<a href="options.html">options.txt</a>	Options
</pre></body></html>`,
	"/help/change.html": `<html><head><title>Help: change</title></head><body><h1>Help: change</h1>
<a href="index.html">main help file</a> <a href="pattern.html">pattern</a> <a href="options.html">options</a><hr><pre>
*change.txt*	Deleting and changing text

4.2 Substitute						*:substitute*

:[range]s[ubstitute]/{pattern}/{string}/[flags] [count]
			For each line in [range] replace a match of {pattern}
			with {string}.  The substitute command searches each
			line for the pattern and replaces the match.
<b>  :s/foo/bar/g		changes "foo foo" to "bar bar"</b>
<b>  :s/a\|b/xxx\0xxx/g	modifies "a b" to "xxxaxxx xxxbxxx"</b>
<b>  :s/\w\+/\u\0/g	modifies "bla bla" to "Bla Bla"</b>

When the replacement starts with "\=" the rest is an expression, and
its value replaces the match.  A count {num} substitutes in {num} lines
from the last line of the range; with [num] as the count the substitute
starts there.  Set the formatting of a paragraph to join its lines:

	    bla bla foobar bla
	bla foobar bla foobar bla
</pre></body></html>`,
	"/help/pattern.html": `<html><head><title>Help: pattern</title></head><body><h1>Help: pattern</h1>
<a href="index.html">main help file</a> <a href="change.html">change</a> <a href="options.html">options</a><hr><pre>
*pattern.txt*	Patterns and search commands

1. Search commands					*search-commands*

/{pattern}<CR>		Search forward for the match of {pattern}.  The search
			pattern may match across lines; a substitute command
			uses the same pattern.
<b>  /foo\|bar		matches "foo" or "bar"</b>
<b>  /\(foo\)\{num}	matches {num} times "foo"</b>
<b>  /xxx$			matches "xxx" at the end of a line</b>

A pattern is one or more branches; each match of a branch is a match of
the pattern, and the substitute command replaces it.
</pre></body></html>`,
	"/help/options.html": `<html><head><title>Help: options</title></head><body><h1>Help: options</h1>
<a href="index.html">main help file</a><hr><pre>
Options set how the editor behaves.  <b>:set ts=8</b> sets the tab stop.
</pre></body></html>`,

	"/zh/": `<html><head><title>目录 - 文本工具手册</title></head><body>
		<a href="regex.html">正则表达式</a> <a href="replace.html">替换</a> <a href="files.html">文件</a>
		<p>本手册介绍命令行工具。</p></body></html>`,
	"/zh/regex.html": `<html lang="zh-CN"><head><title>正则表达式 - 文本工具手册</title></head><body>
		<p><a href="./">目录</a> <a href="replace.html">替换</a> <a href="files.html">文件</a></p>
		<h1>正则表达式语法</h1>
		<p>正则表达式描述文本的模式：点号匹配任意字符，星号重复前面的表达式，方括号匹配字符集合中的一个字符。grep 用正则表达式在每一行中查找匹配的文本。
		命令的格式是 grep [选项] 模式 &lt;文件名&gt;。</p>
		<pre>$ grep -E 'foo|bar' 示例文件.txt
foo
foobar
$ echo "hoge fuga piyo" | grep -o 'fuga'
fuga</pre>
		<p>用 -E 选项使用扩展正则表达式，分组和选择不需要反斜杠。正则表达式的分组匹配可以在替换文本中引用。</p></body></html>`,
	"/zh/replace.html": `<html lang="zh-CN"><head><title>替换 - 文本工具手册</title></head><body>
		<p><a href="./">目录</a> <a href="regex.html">正则表达式</a> <a href="files.html">文件</a></p>
		<h1>替换匹配的文本</h1>
		<p>替换命令把正则表达式匹配的文本换成新的文本，替换文本可以引用匹配的分组。处理 &lt;文件名&gt; 时，每一行的匹配都被替换。</p>
		<pre>$ echo "foo bar baz" | sed 's/foo/hoge/'
hoge bar baz
$ sed -E 's/(foo)(bar)/\2\1/g' 示例文件.txt</pre>
		<p>替换命令的 g 标志替换一行中所有的匹配，不然只替换第一个匹配。</p></body></html>`,
	"/zh/files.html": `<html><head><title>文件 - 文本工具手册</title></head><body><p><a href="./">目录</a></p>
		<h1>文件</h1><p>命令行工具读取文件并把结果写到标准输出。</p><pre>$ cat 示例文件.txt</pre></body></html>`,
}

// TestBootstrapLeavesOutExampleFiller: a draft from pages that show code
// has none of the names of its examples' things (foo, bar, qux, hoge: a
// draft of vim's help pages drafted foo, bla, num and xxx), nor the words
// only its code has (echo, printf, ctrl), nor a placeholder ({num},
// [num], <文件名>); the pages' subject words stay, a word of the prose
// that code has too (sed, grep) and an identifier the prose names in
// inline <code> (ignorecase) among them. On help pages preformatted
// throughout the code is the prose, and keeps its words.
func TestBootstrapLeavesOutExampleFiller(t *testing.T) {
	srv := serveMap(t, exampleCodeSites, nil)
	for _, c := range []struct {
		name        string
		paths       []string
		noise, kept []string
	}{
		{"manual", []string{"/manual/substitute.html", "/manual/regexp.html"},
			[]string{"foo", "bar", "baz", "qux", "quux", "foobar", "num", "echo", "printf", "hello", "greeting", "ctrl"},
			[]string{"substitute", "regular", "expression", "matches", "sed", "ignorecase"}},
		{"preformatted help", []string{"/help/change.html", "/help/pattern.html"},
			[]string{"foo", "bar", "bla", "xxx", "foobar", "num"},
			[]string{"substitute", "pattern", "match", "search"}},
		{"Chinese manual", []string{"/zh/regex.html", "/zh/replace.html"},
			[]string{"foo", "bar", "baz", "foobar", "hoge", "fuga", "piyo", "echo", "文件名", "示例"},
			[]string{"正则表达式", "匹配", "替换", "分组", "grep"}},
	} {
		var urls []string
		for _, p := range c.paths {
			urls = append(urls, srv.URL+p)
		}
		checkKeywords(t, c.name, draft(t, urls, 30), c.noise, c.kept)
	}
}
