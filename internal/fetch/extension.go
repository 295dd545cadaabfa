package fetch

import (
	"net/url"
	"path"
	"strings"
)

// extensionTypes maps the file extensions of formats a page is never
// served in — images, audio and video, archives and packages, office and
// print documents, fonts — to the media types a server sends them with. A
// link to one is a request the allowlist refuses after its headers: a user
// trial's crawl spent 4 of 60 fetches on a manual's image links.
// Extensions not listed (.html, .php, none, .xml, .txt, .js and .css —
// Node.js, three.js and normalize.css are pages about libraries) are
// always tried: their type is the server's to say. A file's page on a wiki
// or a code host (MediaWiki's File:Rose.jpg, GitHub's /blob/main/x.png,
// Codeberg's /src/branch/main/x.png) and a compressed page or text
// (x.html.gz, ls.1.gz, notes.txt.gz) are pages too (pageView).
var extensionTypes = map[string][]string{
	".png": []string{"image/png"}, ".jpg": []string{"image/jpeg"}, ".jpeg": []string{"image/jpeg"}, ".gif": []string{"image/gif"}, ".bmp": []string{"image/bmp"},
	".webp": []string{"image/webp"}, ".svg": []string{"image/svg+xml"}, ".ico": []string{"image/vnd.microsoft.icon", "image/x-icon"}, ".tif": []string{"image/tiff"},
	".tiff": []string{"image/tiff"}, ".avif": []string{"image/avif"},
	".mp3": []string{"audio/mpeg"}, ".ogg": []string{"audio/ogg"}, ".oga": []string{"audio/ogg"}, ".wav": []string{"audio/wav", "audio/x-wav", "audio/wave"}, ".flac": []string{"audio/flac"},
	".m4a": []string{"audio/mp4"}, ".mid": []string{"audio/midi"}, ".midi": []string{"audio/midi"},
	".mp4": []string{"video/mp4"}, ".m4v": []string{"video/mp4"}, ".webm": []string{"video/webm"}, ".ogv": []string{"video/ogg"}, ".avi": []string{"video/x-msvideo"},
	".mov": []string{"video/quicktime"}, ".mkv": []string{"video/x-matroska"}, ".wmv": []string{"video/x-ms-wmv"},
	".zip": []string{"application/zip"}, ".gz": []string{"application/gzip", "application/x-gzip"}, ".tgz": []string{"application/gzip", "application/x-gzip"}, ".bz2": []string{"application/x-bzip2"},
	".xz": []string{"application/x-xz"}, ".7z": []string{"application/x-7z-compressed"}, ".rar": []string{"application/vnd.rar"},
	".tar": []string{"application/x-tar"}, ".deb": []string{"application/vnd.debian.binary-package"}, ".rpm": []string{"application/x-rpm"},
	".iso": []string{"application/x-iso9660-image"}, ".dmg": []string{"application/x-apple-diskimage"}, ".exe": []string{"application/vnd.microsoft.portable-executable"},
	".msi": []string{"application/x-msi"}, ".jar": []string{"application/java-archive"}, ".apk": []string{"application/vnd.android.package-archive"},
	".pdf": []string{"application/pdf"}, ".ps": []string{"application/postscript"}, ".eps": []string{"application/postscript"},
	".epub": []string{"application/epub+zip"}, ".djvu": []string{"image/vnd.djvu"}, ".doc": []string{"application/msword"},
	".docx": []string{"application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	".xls":  []string{"application/vnd.ms-excel"}, ".xlsx": []string{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	".ppt": []string{"application/vnd.ms-powerpoint"}, ".pptx": []string{"application/vnd.openxmlformats-officedocument.presentationml.presentation"},
	".odt": []string{"application/vnd.oasis.opendocument.text"}, ".ods": []string{"application/vnd.oasis.opendocument.spreadsheet"},
	".odp":  []string{"application/vnd.oasis.opendocument.presentation"},
	".woff": []string{"font/woff"}, ".woff2": []string{"font/woff2"}, ".ttf": []string{"font/ttf"}, ".otf": []string{"font/otf"}, ".eot": []string{"application/vnd.ms-fontobject"},
}

// RefusesExtension reports whether u's path ends in the extension of a
// format f's content-type allowlist (fetch.content_types) refuses, so that
// fetching it would cost a request and end in a content_type error. A
// format put in the allowlist (application/pdf, say) is not refused.
func (f *Fetcher) RefusesExtension(u string) bool {
	if f == nil {
		return false
	}
	pu, err := url.Parse(u)
	if err != nil {
		return false
	}
	p := strings.ToLower(pu.Path)
	types, ok := extensionTypes[path.Ext(p)]
	if !ok || pageView(p) {
		return false
	}
	for _, mt := range types {
		if f.types[mt] {
			return false
		}
	}
	return true
}

// pageView reports whether a path (lower-cased, decoded) that ends in a
// file's extension names a page about the file or a compressed page: a
// wiki's file page (a namespace before the name: File:, Image:, Datei:), a
// code host's view of a file in a repository (/blob/, /src/, /tree/), or a
// gzipped page or text (x.html.gz, x.txt.gz, a manual page ls.1.gz, which
// servers send as text with a gzip encoding). Such a path that is a
// download after all costs one refused request, as before this filter.
func pageView(p string) bool {
	base := path.Base(p)
	if strings.Contains(base, ":") {
		return true
	}
	for _, view := range []string{"/blob/", "/src/", "/tree/"} {
		if strings.Contains(p, view) {
			return true
		}
	}
	if path.Ext(base) != ".gz" {
		return false
	}
	switch inner := path.Ext(strings.TrimSuffix(base, ".gz")); inner {
	case ".html", ".htm", ".xhtml", ".txt":
		return true
	default: // ls.1.gz: a manual section number
		return len(inner) == 2 && inner[1] >= '0' && inner[1] <= '9'
	}
}
