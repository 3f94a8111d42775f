package console

import (
	"context"
	"net/url"
	"strconv"

	"marketplace/internal/httpapi"
)

// The view types and helpers the areas' pages share, most of them shown by
// the parts of templates/parts.html: a grid of listing cards ("cards"), a
// list's pager ("pager"), a select's options ("options"); and the names of
// the people a page shows. (The parts "spending" and "keyCells", the
// account's spending and a key's row, show the API's types.)

// cardGrid is a page's grid of listing cards; Condition shows each one's
// condition (the front page leaves it out).
type cardGrid struct {
	Cards     []listingCard
	Condition bool
}

// option is one choice of a select, and whether it is chosen.
type option struct {
	Value, Label string
	Selected     bool
}

// choose is opts with current chosen (a copy: opts may be shared).
func choose(opts []option, current string) []option {
	out := make([]option, len(opts))
	for i, o := range opts {
		o.Selected = o.Value == current
		out[i] = o
	}
	return out
}

// choices are the choices of a filter's select: first "any" (the empty
// value), then each of values, current chosen.
func choices(current string, values ...string) []option {
	opts := []option{{Value: "", Label: "any"}}
	for _, v := range values {
		opts = append(opts, option{Value: v, Label: v})
	}
	return choose(opts, current)
}

// labelOf is value's label among opts, value itself when it has none.
func labelOf(opts []option, value string) string {
	for _, o := range opts {
		if o.Value == value {
			return o.Label
		}
	}
	return value
}

// pager is where a list page stands, with links to the pages beside it
// that keep the page's filters.
type pager struct {
	// Label names the pager's nav, "Pages" unless set (a page with two
	// lists names each one's).
	Label string
	// Count has the pager say where the page stands ("21–40 of 95"), and
	// show whenever the list has anything.
	Count           bool
	From, To, Total int
	Capped          bool // a filtered total counted only so far (market.CountBound): "more than"
	Prev, Next      string
	// PrevText and NextText are the links' words, "Previous page" and
	// "Next page" unless set.
	PrevText, NextText string
}

// Shown is whether the page has a pager to show.
func (p pager) Shown() bool {
	if p.Count {
		return p.Total > 0
	}
	return p.Prev != "" || p.Next != ""
}

// pageOf is the pager of a page of n items at offset out of total, limit
// items to a page; link(off) is the page at offset off.
func pageOf(n, total, limit, offset int, link func(off int) string) pager {
	p := pager{From: offset + 1, To: offset + n, Total: total}
	if n == 0 {
		p.From = offset
	}
	if offset > 0 {
		p.Prev = link(max(offset-limit, 0))
	}
	if offset+n < total {
		p.Next = link(offset + limit)
	}
	return p
}

// pageLinks are the pages of the list at path, for pageOf: the filters of
// q that are set, limit unless it is the default, offset unless it is 0.
func pageLinks(path string, q url.Values, limit int) func(off int) string {
	return func(off int) string {
		p := url.Values{}
		for k, vs := range q {
			if k == "limit" || k == "offset" {
				continue
			}
			for _, v := range vs {
				if v != "" {
					p.Add(k, v)
				}
			}
		}
		if limit != httpapi.DefaultLimit {
			p.Set("limit", strconv.Itoa(limit))
		}
		if off > 0 {
			p.Set("offset", strconv.Itoa(off))
		}
		if len(p) == 0 {
			return path
		}
		return path + "?" + p.Encode()
	}
}

// displayNames finds the display names of the people a page shows, each
// looked up once; the viewer's own is known. Someone gone, or without a
// name, is called gone (each area has its words for it).
type displayNames struct {
	c     *Console
	ctx   context.Context
	gone  string
	known map[string]string
}

func (c *Console) displayNames(v *visit, gone string) *displayNames {
	n := &displayNames{c: c, ctx: v.r.Context(), gone: gone, known: map[string]string{}}
	if v.user != nil && v.user.DisplayName != "" {
		n.known[v.user.ID] = v.user.DisplayName
	}
	return n
}

// of is the display name of the person id.
func (n *displayNames) of(id string) string {
	if name, ok := n.known[id]; ok {
		return name
	}
	name := n.gone
	if u, err := n.c.Ops.Accounts.User(n.ctx, id); err == nil && u.DisplayName != "" {
		name = u.DisplayName
	}
	n.known[id] = name
	return name
}
