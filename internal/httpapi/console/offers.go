package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/offers"
)

// offersPageSize is how many offers each side of the Offers page shows.
const offersPageSize = 20

// offersSide is one party's offers: received (as seller) or made (as
// buyer), with their pager.
type offersSide struct {
	Rows []sellingOfferRow
	Page pager
}

type offersData struct {
	Received, Made offersSide
	Error          *market.Error
}

func (c *Console) offersPage(v *visit) error {
	return c.offersShow(v, http.StatusOK, nil)
}

// offersShow lists the caller's offers as seller and as buyer, as GET
// /offers/seller/me and /offers/buyer/me do, each with the actions its
// state allows the caller.
func (c *Console) offersShow(v *visit, status int, refusal *market.Error) error {
	q := v.r.URL.Query()
	var check market.Check
	offset := func(k string) int {
		s := q.Get(k)
		if s == "" {
			return 0
		}
		n, err := strconv.Atoi(s)
		check.Require(err == nil && n >= 0, k, "must be a whole number, 0 or more")
		return max(n, 0)
	}
	received, made := offset("received"), offset("made")
	if err := check.Err(); err != nil {
		return err
	}
	names := c.displayNames(v, "a member")
	titles := map[string]string{}
	link := func(rec, md int) string {
		q := url.Values{}
		if rec > 0 {
			q.Set("received", strconv.Itoa(rec))
		}
		if md > 0 {
			q.Set("made", strconv.Itoa(md))
		}
		if len(q) == 0 {
			return "/offers"
		}
		return "/offers?" + q.Encode()
	}
	side := func(role offers.Party, off int, page func(int) string) (offersSide, error) {
		os, total, err := c.Ops.OfferOps().List(v.r.Context(), v.caller(), role, "", offersPageSize, off)
		if err != nil {
			return offersSide{}, err
		}
		s := offersSide{Page: pageOf(len(os), total, offersPageSize, off, page)}
		s.Page.Label = "Offers you made pages"
		if role == offers.Seller {
			s.Page.Label = "Offers you received pages"
		}
		for _, o := range os {
			row := offerRow(v, o, "/offers", names)
			row.ListingTitle = c.offersTitle(v, o.ListingID, titles)
			s.Rows = append(s.Rows, row)
		}
		return s, nil
	}
	d := offersData{Error: sellingRelabel(refusal)}
	var err error
	if d.Received, err = side(offers.Seller, received, func(n int) string { return link(n, made) }); err != nil {
		return err
	}
	if d.Made, err = side(offers.Buyer, made, func(n int) string { return link(received, n) }); err != nil {
		return err
	}
	return c.render(v, status, "offers", d)
}

// offersTitle is the title of an offer's listing as the caller may see it;
// a listing gone from view has none.
func (c *Console) offersTitle(v *visit, listingID string, cache map[string]string) string {
	if t, ok := cache[listingID]; ok {
		return t
	}
	t := ""
	if lv, err := c.Ops.ListingOps().Get(v.r.Context(), v.caller(), listingID); err == nil {
		t = lv.Base().Title
	}
	cache[listingID] = t
	return t
}

// offersAnswer accepts, counters or declines an offer waiting for the
// caller, or withdraws the caller's own, as POST /offers/{id}/accept,
// /counter, /reject and /withdraw do; then back to the page it came from.
// Another person's offer is NOT_FOUND, as on the API.
func (c *Console) offersAnswer(v *visit) error {
	ops, id, ctx, f := c.Ops.OfferOps(), v.r.PathValue("id"), v.r.Context(), v.r.PostForm
	httpapi.Entity(v.r, "offer", id)
	msg := f.Get("message")
	var err error
	switch v.r.PathValue("action") {
	case "accept":
		_, err = ops.Answer(ctx, v.caller(), id, offers.Answer{Action: offers.ActionAccept, Message: msg})
	case "reject":
		_, err = ops.Answer(ctx, v.caller(), id, offers.Answer{Action: offers.ActionReject, Message: msg})
	case "counter":
		var check market.Check
		amount := cents(&check, f, "counterPrice", "Counter amount")
		if amount == nil && strings.TrimSpace(f.Get("counterPrice")) == "" {
			check.Add("counterPrice", "Counter amount is required, in dollars and cents")
		}
		if err = check.Err(); err == nil {
			_, err = ops.Answer(ctx, v.caller(), id, offers.Answer{Action: offers.ActionCounter, CounterPrice: amount, Message: msg})
		}
	case "withdraw":
		_, err = ops.Withdraw(ctx, v.caller(), id)
	default:
		return market.Errorf(market.CodeNotFound, "no such page")
	}
	next := safeNext(f.Get("next"))
	if next == "/" {
		next = "/offers"
	}
	return c.answer(v, err, next, c.offersShow)
}
