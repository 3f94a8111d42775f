package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// copies are the documents kept verbatim from the team's shared ones: their
// links are checked, but the paths their code spans name are the team's
// plans as much as this repository's files.
var copies = map[string]bool{
	"docs/CONTRACT.md":                true,
	"docs/ARCHITECTURE.md":            true,
	"docs/interface-specification.md": true,
}

// TestDocLinks reads README.md and every docs/*.md as a reader follows them:
// each relative link must name a file or folder of the repository (never
// one outside it), each #anchor a heading of its target, and each code span
// that is a repository path (`internal/store/area.go`, `scripts/bench/`,
// `internal/moderation/trust*.go`) must name something that exists, as must
// each test, benchmark or fuzz target a code span names (`TestTour`), so the
// documents cannot drift from the tree without a test failing.
func TestDocLinks(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range more {
		rel, _ := filepath.Rel(root, f)
		files = append(files, filepath.ToSlash(rel))
	}
	docs := map[string]*mdDoc{}
	load := func(rel string) (*mdDoc, error) {
		if d, ok := docs[rel]; ok {
			return d, nil
		}
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return nil, err
		}
		d := parseMarkdown(string(b))
		docs[rel] = d
		return d, nil
	}
	tests := testFuncs(t, root)
	checked := 0
	for _, rel := range files {
		d, err := load(rel)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range d.links {
			checked++
			if err := checkLink(root, rel, l.target, load); err != nil {
				t.Errorf("%s:%d: link %q: %v", rel, l.line, l.target, err)
			}
		}
		if copies[rel] {
			continue
		}
		for _, c := range d.codePaths {
			checked++
			matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(c.target, "/"))))
			if err != nil || len(matches) == 0 {
				t.Errorf("%s:%d: `%s` names no file or folder of the repository", rel, c.line, c.target)
			}
		}
		for _, c := range d.testNames {
			checked++
			if !tests[c.target] {
				t.Errorf("%s:%d: no test file defines %s", rel, c.line, c.target)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no links or paths found: the parser is off")
	}
}

// TestNoOutsideReferences fails when a Go or Markdown file of the repository
// points at the team's shared folder, which a clone does not have: the
// documents it meant are in docs/ (CONTRACT.md, ARCHITECTURE.md,
// interface-specification.md), and comments name them as "CONTRACT.md
// section N" and the like.
func TestNoOutsideReferences(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// [/] rather than a plain slash, so that grepping for the folder finds no line here.
	outside := regexp.MustCompile(`\bshared[/](spec/|CONTRACT|ARCHITECTURE|hooks/)`)
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if name := e.Name(); path != root && (strings.HasPrefix(name, ".") && name != ".ci" || name == "data" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext != ".go" && ext != ".md" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if outside.MatchString(line) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d points outside the repository: %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testFuncs are the names of the tests, benchmarks and fuzz targets the
// repository's test files define.
func testFuncs(t *testing.T, root string) map[string]bool {
	t.Helper()
	def := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)\w*)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && path != root && strings.HasPrefix(e.Name(), ".") {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range def.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkLink resolves target as the file from (relative to the repository
// root) links it.
func checkLink(root, from, target string, load func(string) (*mdDoc, error)) error {
	if regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`).MatchString(target) {
		return nil // http:, https:, mailto:: not this test's business
	}
	path, anchor, _ := strings.Cut(target, "#")
	rel := from
	if path != "" {
		if strings.HasPrefix(path, "/") {
			return fmt.Errorf("an absolute path; links are relative to the file")
		}
		rel = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), path)))
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return fmt.Errorf("points outside the repository")
		}
		if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
			return fmt.Errorf("no such file or folder: %s", rel)
		}
	}
	if anchor == "" {
		return nil
	}
	if !strings.HasSuffix(rel, ".md") {
		return fmt.Errorf("an anchor into a file that is not Markdown")
	}
	d, err := load(rel)
	if err != nil {
		return err
	}
	if !d.anchors[anchor] {
		return fmt.Errorf("%s has no heading with the anchor #%s", rel, anchor)
	}
	return nil
}

// mdDoc is what TestDocLinks reads of a Markdown file.
type mdDoc struct {
	links, codePaths, testNames []mdRef
	anchors                     map[string]bool
}

type mdRef struct {
	target string
	line   int
}

var (
	mdLink     = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	mdRefDef   = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+(\S+)`)
	mdCode     = regexp.MustCompile("`([^`]+)`")
	mdRepoPath = regexp.MustCompile(`^(\.ci|cmd|docs|internal|scripts)/[A-Za-z0-9_./*-]*$`)
	mdTestName = regexp.MustCompile(`^((?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*)(?:/.*)?$`)
)

// parseMarkdown collects the links, the repository paths in code spans and
// the heading anchors (as GitHub makes them) of a Markdown text, outside
// fenced and indented code blocks.
func parseMarkdown(text string) *mdDoc {
	d := &mdDoc{anchors: map[string]bool{}}
	seen := map[string]int{}
	fence := ""
	prevBlank := true
	inIndented := false
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		// An indented code block starts after a blank line, not in a list item's continuation.
		if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			if prevBlank || inIndented {
				inIndented = true
				continue
			}
		} else if trimmed != "" {
			inIndented = false
		}
		prevBlank = trimmed == ""
		if h := strings.TrimLeft(trimmed, "#"); strings.HasPrefix(trimmed, "#") && strings.HasPrefix(h, " ") {
			slug := headingSlug(h)
			if k := seen[slug]; k > 0 {
				d.anchors[fmt.Sprintf("%s-%d", slug, k)] = true
			} else {
				d.anchors[slug] = true
			}
			seen[slug]++
		}
		for _, m := range mdCode.FindAllStringSubmatch(line, -1) {
			if mdRepoPath.MatchString(m[1]) {
				d.codePaths = append(d.codePaths, mdRef{m[1], n})
			}
			if t := mdTestName.FindStringSubmatch(m[1]); t != nil {
				d.testNames = append(d.testNames, mdRef{t[1], n})
			}
		}
		plain := mdCode.ReplaceAllString(line, "")
		for _, m := range mdLink.FindAllStringSubmatch(plain, -1) {
			d.links = append(d.links, mdRef{m[1], n})
		}
		if m := mdRefDef.FindStringSubmatch(plain); m != nil {
			d.links = append(d.links, mdRef{m[1], n})
		}
	}
	return d
}

// headingSlug is GitHub's anchor for a heading: its text without markup,
// lower case, spaces as hyphens, and only letters, digits, hyphens and
// underscores kept.
func headingSlug(h string) string {
	h = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(strings.TrimSpace(h), "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
