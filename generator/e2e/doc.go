// Package e2e holds the end-to-end tests of the built site: a check of
// every generated HTML file (well-formed, unique ids, internal links and
// fragments resolve) and a browser suite that drives Debian's chromium
// with chromedp against the fixture site (testdata/site) and against `dossier serve`.
//
// The browser tests skip when no chromium is installed, unless the
// environment variable CI is set, in which case they fail. Screenshots go
// to $DOSSIER_ARTIFACTS, default testdata/artifacts in this directory.
//
// The package has no non-test code.
package e2e
