package site

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"sort"
	"strings"
	"time"

	"dossier/generator/corrections"
)

// feeds writes sitemap.xml and index.xml (RSS 2.0). Both are built from
// dates in the inputs, never the clock, so builds stay reproducible. Each
// dossier revision is one feed item whose GUID names the model and the
// commit it was computed from: a new revision is a new item. Each
// committed version whose verdicts flipped (the corrections log) is an item
// too.
func (s *Site) feeds(out *memory, paths []string, sums []*Summary, items []item) error {
	base := s.Config.BaseURL
	type url struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod,omitempty"`
	}
	lastmod := map[string]string{}
	for _, m := range sums {
		lastmod["models/"+m.Slug+"/"] = latest(m.Reviewed, m.Fetched)
	}
	var urls []url
	sort.Strings(paths)
	for _, p := range paths {
		urls = append(urls, url{Loc: base + p, LastMod: lastmod[p]})
	}
	sm := struct {
		XMLName xml.Name `xml:"urlset"`
		NS      string   `xml:"xmlns,attr"`
		URLs    []url    `xml:"url"`
	}{NS: "http://www.sitemaps.org/schemas/sitemap/0.9", URLs: urls}
	b, err := marshalXML(sm)
	if err != nil {
		return fmt.Errorf("sitemap.xml: %w", err)
	}
	if err := out.put("sitemap.xml", b); err != nil {
		return err
	}

	sort.SliceStable(items, func(i, j int) bool { return items[i].date > items[j].date })
	rss := struct {
		XMLName xml.Name `xml:"rss"`
		Version string   `xml:"version,attr"`
		Channel struct {
			Title       string `xml:"title"`
			Link        string `xml:"link"`
			Description string `xml:"description"`
			Items       []item `xml:"item"`
		} `xml:"channel"`
	}{Version: "2.0"}
	rss.Channel.Title = s.Config.Title
	rss.Channel.Link = base
	rss.Channel.Description = "New dossiers, new revisions of tracked models, new and changed reviews, and corrections"
	rss.Channel.Items = items
	if b, err = marshalXML(rss); err != nil {
		return fmt.Errorf("index.xml: %w", err)
	}
	return out.put("index.xml", b)
}

// feedItems are a model's feed items: its revision, each committed
// version that flipped a verdict, and its review items.
func (s *Site) feedItems(m *Summary) []item {
	base := s.Config.BaseURL
	var items []item
	d := latest(m.Reviewed, m.Fetched)
	title, rev := m.Title+": dossier at revision "+short(m.Revision), m.Revision
	if rev == "" {
		// No commit recorded: the data's date identifies the version.
		title, rev = m.Title+": dossier (revision not recorded), data of "+m.Fetched, "unpinned-"+m.Fetched
	}
	items = append(items, item{
		Title:       title,
		Link:        base + "models/" + m.Slug + "/",
		GUID:        guid{Value: "dossier:" + m.Model + "@" + rev},
		PubDate:     rfc822(d),
		Description: fmt.Sprintf("%s %s; %s.", m.Text, "Claims: "+m.Verdicts, "data as of "+m.Fetched),
		date:        d,
	})
	// A verdict that flipped is news of its own: one item per
	// committed version that flipped one.
	for _, e := range s.corrections[m.Slug] {
		if !e.Flipped() {
			continue
		}
		items = append(items, item{
			Title:       m.Title + ": verdict changed (" + strings.Join(e.Why, ", ") + ")",
			Link:        base + "models/" + m.Slug + "/",
			GUID:        guid{Value: "dossier:" + m.Model + ":correction@" + e.Commit},
			PubDate:     rfc822(e.Date),
			Description: corrections.Describe(e) + ".",
			date:        e.Date,
		})
	}
	return append(items, reviewItems(m, s.corrections[m.Slug], base)...)
}

type guid struct {
	Perma bool   `xml:"isPermaLink,attr"`
	Value string `xml:",chardata"`
}

// item is one RSS item; date orders the feed.
type item struct {
	Title       string `xml:"title"`
	Link        string `xml:"link"`
	GUID        guid   `xml:"guid"`
	PubDate     string `xml:"pubDate,omitempty"`
	Description string `xml:"description"`
	date        string
}

// reviewItems are a dossier's news about single reviews: each editorial
// entry, and from its committed history each claim whose verdict changed
// and each claim added after the dossier was first published.
func reviewItems(m *Summary, log []corrections.Entry, base string) []item {
	link := base + "models/" + m.Slug + "/"
	text := map[string]string{}
	for _, c := range m.Claims {
		text[c.ID] = c.Text
	}
	var out []item
	for _, c := range m.Editorial {
		at := link
		if c.Claim != "" {
			at += "#claim-" + c.Claim
		}
		out = append(out, item{Title: m.Title + ": " + c.Headline(), Link: at,
			GUID:    guid{Value: "dossier:" + m.Model + ":" + c.Kind + ":" + c.Subject() + "@" + c.Date},
			PubDate: rfc822(c.Date), Description: c.Why + " (" + c.By + ").", date: c.Date})
	}
	for _, e := range log {
		for _, f := range e.Verdicts {
			id, ok := strings.CutPrefix(f.What, "claim ")
			if !ok {
				continue
			}
			out = append(out, item{Title: m.Title + ": review of claim " + id + " changed: " + f.Old.Shown() + " → " + f.New.Shown(), Link: link + "#claim-" + id,
				GUID:    guid{Value: "dossier:" + m.Model + ":review:" + id + "@" + e.Commit},
				PubDate: rfc822(e.Date), Description: claimText(text, id), date: e.Date})
		}
		for _, id := range e.NewClaims {
			out = append(out, item{Title: m.Title + ": new review of claim " + id, Link: link + "#claim-" + id,
				GUID:    guid{Value: "dossier:" + m.Model + ":review:" + id + "@" + e.Commit},
				PubDate: rfc822(e.Date), Description: claimText(text, id), date: e.Date})
		}
	}
	return out
}

// claimText is a claim's text for a feed item, or a note when the claim
// has since been removed.
func claimText(text map[string]string, id string) string {
	if t, ok := text[id]; ok {
		return "“" + t + "”"
	}
	return "(the claim is no longer on the page)"
}

func marshalXML(v any) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

func latest(dates ...string) string {
	l := ""
	for _, d := range dates {
		if d > l {
			l = d
		}
	}
	return l
}

func rfc822(date string) string {
	t, err := time.Parse(time.DateOnly, date[:min(10, len(date))])
	if err != nil {
		return ""
	}
	return t.Format(time.RFC1123Z)
}

func short(sha string) string { return sha[:min(7, len(sha))] }
