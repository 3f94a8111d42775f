package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/listings/generator"
	"marketplace/internal/testkit"
)

// slowMarked makes the first generation of a brief marked slowMark outlast
// the create budget, so that listing goes pending_ai and the job queue
// finishes it (listing.ai_complete); every other brief is generated at once.
type slowMarked struct {
	stalled atomic.Bool
	next    listings.Generator
}

const slowMark = "slowgen"

func (g *slowMarked) Generate(ctx context.Context, b listings.Brief) (listings.Draft, error) {
	if strings.Contains(b.Description, slowMark) && g.stalled.CompareAndSwap(false, true) {
		<-ctx.Done()
		return listings.Draft{}, ctx.Err()
	}
	return g.next.Generate(ctx, b)
}

// privateKeys never appear in any event's data: the seller's private
// figures, and the list of who watches a listing.
var privateKeys = []string{"floorPrice", "costBasis", "floor_price", "cost_basis", "watchers"}

// want is one event a step must produce: of type typ, whose data holds
// every field of match (compared as JSON), received exactly once by each
// user of to and by none of notTo, with none of the fields of absent.
type want struct {
	typ    string
	match  map[string]any
	absent []string
	to     []*testkit.User
	notTo  []*testkit.User
}

// eventWorld drives causes and checks what each user received, through
// every observer, step by step.
type eventWorld struct {
	t        *testing.T
	s        *testkit.Server
	users    []*testkit.User
	role     map[string]string            // user id -> role, for messages
	watchers map[string][]string          // listing id -> watching user ids
	keyOwner map[string]string            // agent key id -> owner id
	known    map[string]map[string]bool   // observer -> event id + "/" + user id, already checked
	seenBy   map[string]map[string]string // observer -> type -> a user who saw it
	lag      map[string]time.Duration     // observer -> the longest a step's events took to show
}

func newEventWorld(t *testing.T, s *testkit.Server) *eventWorld {
	w := &eventWorld{t: t, s: s, role: map[string]string{}, watchers: map[string][]string{}, keyOwner: map[string]string{},
		known: map[string]map[string]bool{}, seenBy: map[string]map[string]string{}, lag: map[string]time.Duration{}}
	for _, ob := range eventObservers {
		w.known[ob.name] = map[string]bool{}
		w.seenBy[ob.name] = map[string]string{}
	}
	return w
}

// add makes u one of the users every step looks at.
func (w *eventWorld) add(u *testkit.User, role string) *testkit.User {
	w.t.Helper()
	w.users = append(w.users, u)
	w.role[u.ID] = role
	for _, ob := range eventObservers {
		if ob.attach != nil {
			ob.attach(w.t, w.s, u)
		}
	}
	return u
}

func (w *eventWorld) name(id string) string {
	if r, ok := w.role[id]; ok {
		return r
	}
	return id
}

// step checks, through every observer, the events that arrived since the
// last step: wants are met, and every event obeys the contract's rules
// (checkRules). A sync observer must show them at once, since they were
// written in the transaction of the change; async marks a step whose
// cause itself runs in the background.
func (w *eventWorld) step(name string, async bool, wants ...want) {
	w.t.Helper()
	for _, ob := range eventObservers {
		start := time.Now()
		deadline := start.Add(30 * time.Second)
		for {
			delta := w.delta(ob)
			problems := w.unmet(delta, wants)
			if len(problems) == 0 {
				for _, u := range w.users {
					for _, e := range delta[u.ID] {
						w.checkRules(ob.name, u, &e)
						w.known[ob.name][e.ID+"/"+u.ID] = true
					}
				}
				if lag := time.Since(start); !async && lag > w.lag[ob.name] {
					w.lag[ob.name] = lag
				}
				break
			}
			if (ob.sync && !async) || time.Now().After(deadline) {
				w.t.Fatalf("%s, seen by %s:\n  %s\nnew events:\n%s", name, ob.name, strings.Join(problems, "\n  "), w.dump(delta))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// delta is what each user received through ob that no step checked yet.
func (w *eventWorld) delta(ob eventObserver) map[string][]events.Event {
	w.t.Helper()
	out := map[string][]events.Event{}
	for _, u := range w.users {
		for _, e := range ob.seen(w.t, w.s, u) {
			if !w.known[ob.name][e.ID+"/"+u.ID] {
				out[u.ID] = append(out[u.ID], e)
			}
		}
	}
	return out
}

func (w *eventWorld) unmet(delta map[string][]events.Event, wants []want) []string {
	var problems []string
	for _, x := range wants {
		count := func(u *testkit.User) (n int, absentFound []string) {
			for _, e := range delta[u.ID] {
				if e.Type != x.typ || !matches(e.Data, x.match) {
					continue
				}
				n++
				for _, k := range x.absent {
					if _, ok := e.Data[k]; ok {
						absentFound = append(absentFound, k)
					}
				}
			}
			return n, absentFound
		}
		for _, u := range x.to {
			n, bad := count(u)
			if n != 1 {
				problems = append(problems, fmt.Sprintf("%s %v: %s received %d, want 1", x.typ, x.match, w.name(u.ID), n))
			}
			if len(bad) > 0 {
				problems = append(problems, fmt.Sprintf("%s %v to %s has %v", x.typ, x.match, w.name(u.ID), bad))
			}
		}
		for _, u := range x.notTo {
			if n, _ := count(u); n != 0 {
				problems = append(problems, fmt.Sprintf("%s %v: %s received %d, want none", x.typ, x.match, w.name(u.ID), n))
			}
		}
	}
	return problems
}

func (w *eventWorld) dump(delta map[string][]events.Event) string {
	var b strings.Builder
	for _, u := range w.users {
		for _, e := range delta[u.ID] {
			d, _ := json.Marshal(e.Data)
			fmt.Fprintf(&b, "  %-10s %-20s %s\n", w.name(u.ID), e.Type, d)
		}
	}
	return b.String()
}

// matches reports whether data holds every field of m, compared as JSON
// (so 8000 matches 8000.0 and []string{"price"} matches []any{"price"}).
func matches(data, m map[string]any) bool {
	for k, v := range m {
		got, ok := data[k]
		if !ok {
			return false
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(v)
		if string(a) != string(b) {
			return false
		}
	}
	return true
}

// checkRules checks one event u received against CONTRACT.md section 12:
// a public type other than the webhook test; listing events to the seller,
// listing.updated to watchers too (never an owner-only change); offer
// events to a party that did not act; order, refund and payment events to
// buyer and seller (payment.released to the seller alone); a message to
// its recipient; approvals and key freezes to the owner. Private fields
// and other watchers are never named.
func (w *eventWorld) checkRules(observer string, u *testkit.User, e *events.Event) {
	w.t.Helper()
	t := w.t
	d := e.Data
	str := func(k string) string { s, _ := d[k].(string); return s }
	fail := func(why string) {
		t.Helper()
		raw, _ := json.Marshal(d)
		t.Errorf("%s: %s received %s (actor %s): %s\n  %s", observer, w.name(u.ID), e.Type, w.name(e.ActorID), why, raw)
	}
	if !events.Public(e.Type) || e.Type == events.TypeTest {
		fail("not a public type a cause records")
		return
	}
	if _, ok := w.seenBy[observer][e.Type]; !ok {
		w.seenBy[observer][e.Type] = u.ID
	}
	if k := privateKey(d); k != "" {
		fail("data names the private field " + k)
	}
	for _, ids := range w.watchers {
		for _, id := range ids {
			if id != u.ID && mentions(d, id) {
				fail("data names the watcher " + w.name(id))
			}
		}
	}
	if str("listingId") == "" && e.Type != "agent_key.frozen" {
		fail("no listingId")
	}
	parties := []string{str("buyerId"), str("sellerId")}
	switch {
	case e.Type == "listing.updated":
		if u.ID != str("sellerId") && !slices.Contains(w.watchers[str("listingId")], u.ID) {
			fail("neither the seller nor a watcher")
		}
		if u.ID != str("sellerId") {
			for _, c := range asStrings(d["changes"]) {
				if c == "floorPrice" || c == "costBasis" {
					fail("a watcher hears of the owner-only change " + c)
				}
			}
		}
	case strings.HasPrefix(e.Type, "listing."):
		if u.ID != str("sellerId") {
			fail("not the seller")
		}
	case strings.HasPrefix(e.Type, "offer."):
		if str("offerId") == "" || !slices.Contains(parties, u.ID) {
			fail("not a party to the offer")
		}
		if e.ActorID == u.ID {
			fail("the party who acted")
		}
	case e.Type == "payment.released":
		if u.ID != str("sellerId") || str("orderId") == "" {
			fail("not the seller")
		}
	case e.Type == "approval.required":
		if u.ID != str("buyerId") || str("approvalId") == "" || str("orderId") == "" {
			fail("not the buying owner")
		}
	case strings.HasPrefix(e.Type, "order."), e.Type == "refund.issued":
		if !slices.Contains(parties, u.ID) || str("orderId") == "" || str("status") == "" {
			fail("not a party to the order, or no order snapshot")
		}
	case e.Type == "message.received":
		if u.ID != str("recipientId") || u.ID == str("senderId") || str("threadId") == "" || str("messageId") == "" {
			fail("not the recipient")
		}
	case e.Type == "agent_key.frozen":
		if w.keyOwner[str("keyId")] != u.ID {
			fail("not the key's owner")
		}
	default:
		fail("no rule for this type in the test: add one")
	}
}

// privateKey is the first private field named anywhere in v, or "".
func privateKey(v any) string {
	switch x := v.(type) {
	case map[string]any:
		for k, y := range x {
			if slices.Contains(privateKeys, k) {
				return k
			}
			if p := privateKey(y); p != "" {
				return p
			}
		}
	case []any:
		for _, y := range x {
			if p := privateKey(y); p != "" {
				return p
			}
		}
	}
	return ""
}

// mentions reports whether the string s appears as a value anywhere in v.
func mentions(v any, s string) bool {
	switch x := v.(type) {
	case string:
		return x == s
	case map[string]any:
		for _, y := range x {
			if mentions(y, s) {
				return true
			}
		}
	case []any:
		for _, y := range x {
			if mentions(y, s) {
				return true
			}
		}
	}
	return false
}

func asStrings(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// TestEventCauses drives every public event type of CONTRACT.md section 12
// from its cause, on every engine, and checks through each observer (the
// feed, read from the store) that it arrived at once, to the right users
// and no others, with the ids and snapshot it should carry. A type no step
// produces fails the test at the end.
func TestEventCauses(t *testing.T) {
	gen := &slowMarked{next: generator.NewBuiltin(listings.DefaultTaxonomy(), nil)}
	opts := testkit.Options{WithJobs: true, Generator: gen, GenerationBudget: 2 * time.Second}
	testkit.Run(t, opts, func(t *testing.T, s *testkit.Server) {
		gen.stalled.Store(false)
		w := newEventWorld(t, s)
		seller := w.add(s.VerifiedOwner("Seller"), "seller")
		buyer := s.NewShopper("Buyer", "pm_card_visa")
		w.add(buyer.User, "buyer")
		w.keyOwner[buyer.Key.ID] = buyer.ID
		watcher1 := w.add(s.Register("Watcher"), "watcher1")
		watcher2 := w.add(s.Register("Watcher"), "watcher2")
		stranger := w.add(s.VerifiedOwner("Stranger"), "stranger")
		admin := w.add(s.Admin(), "admin")
		s.Do("POST", "/api/v1/addresses", testkit.Address(), buyer.Auth()).Want(t, http.StatusCreated, "")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000})
		everyone := func(except ...*testkit.User) []*testkit.User {
			return slices.DeleteFunc(slices.Clone(w.users), func(u *testkit.User) bool { return slices.Contains(except, u) })
		}
		withOffers := func(id string) {
			minimum, floor, cost := int64(3000), int64(5000), int64(2000)
			s.EditListing(id, func(l *listings.Listing) {
				l.AcceptOffers, l.MinOfferAmount, l.FloorPrice, l.CostBasis = true, &minimum, &floor, &cost
			})
		}
		watch := func(u *testkit.User, listing string) {
			s.Do("POST", "/api/v1/listings/"+listing+"/watch", nil, u.Auth()).Want(t, http.StatusOK, "")
			w.watchers[listing] = append(w.watchers[listing], u.ID)
		}
		purchase := func(listing string, price int64) map[string]any {
			return s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing, "maxPrice": price,
				"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()
		}
		advance := func(hours int) {
			s.Do("POST", fmt.Sprintf("/v1/sandbox/time-advance/%d", hours), nil, buyer.Key.Auth()).Want(t, http.StatusOK, "")
		}

		// Listings: created for the seller alone; a price drop to the
		// seller and every watcher, with the old and the new price; an
		// owner-only change to the seller alone.
		table := s.ActiveListing(seller, "Mid-century teak side table, small, light wear", 10000)
		withOffers(table)
		// listing.created is recorded with the row, before generation
		// fills it; generation within the create budget finishes it at
		// once (listing.ai_complete, active).
		w.step("listing created", false,
			want{typ: "listing.created", match: map[string]any{"listingId": table, "sellerId": seller.ID, "price": 10000},
				to: []*testkit.User{seller}, notTo: everyone(seller)},
			want{typ: "listing.ai_complete", match: map[string]any{"listingId": table, "sellerId": seller.ID, "price": 10000,
				"status": "active", "title": "Mid-Century Teak Side Table"}, to: []*testkit.User{seller}, notTo: everyone(seller)})
		watch(watcher1, table)
		watch(watcher2, table)
		w.step("watched", false)
		s.Do("PATCH", "/api/v1/listings/"+table, map[string]any{"price": 8000}, seller.Auth()).Want(t, http.StatusOK, "")
		w.step("price drop", false, want{typ: "listing.updated",
			match: map[string]any{"listingId": table, "sellerId": seller.ID, "price": 8000, "previousPrice": 10000,
				"priceDrop": true, "status": "active"},
			to: []*testkit.User{seller, watcher1, watcher2}, notTo: []*testkit.User{buyer.User, stranger, admin}})
		s.Do("PATCH", "/api/v1/listings/"+table, map[string]any{"price": 8000, "floorPrice": 4000}, seller.Auth()).
			Want(t, http.StatusOK, "")
		w.step("floor price change", false, want{typ: "listing.updated",
			match: map[string]any{"listingId": table, "changes": []string{"floorPrice"}}, absent: []string{"previousPrice"},
			to: []*testkit.User{seller}, notTo: everyone(seller)})
		s.Do("PATCH", "/api/v1/listings/"+table, map[string]any{"title": "Teak side table, mid-century, one small drawer"},
			seller.Auth()).Want(t, http.StatusOK, "")
		w.step("title change", false, want{typ: "listing.updated",
			match:  map[string]any{"listingId": table, "changes": []string{"title"}, "price": 8000, "priceDrop": false},
			absent: []string{"previousPrice"}, to: []*testkit.User{seller, watcher1, watcher2},
			notTo: []*testkit.User{buyer.User, stranger, admin}})

		// An edit naming a restricted brand removes the listing: its
		// watchers hear it is gone.
		scarf := s.ActiveListing(seller, "Silk scarf with hand-rolled edges, 90 cm", 6000)
		watch(watcher1, scarf)
		s.Do("PATCH", "/api/v1/listings/"+scarf, map[string]any{"title": "Louis Vuitton silk scarf"}, seller.Auth()).
			Want(t, http.StatusUnprocessableEntity, "LISTING_RESTRICTED")
		w.step("removed by moderation", false,
			want{typ: "listing.created", match: map[string]any{"listingId": scarf}, to: []*testkit.User{seller}},
			want{typ: "listing.updated", match: map[string]any{"listingId": scarf, "status": "removed", "previousStatus": "active"},
				to: []*testkit.User{watcher1}, notTo: []*testkit.User{watcher2, buyer.User, stranger, admin}})

		// Messages: to the recipient, never back to the sender.
		m := s.Do("POST", "/api/v1/messages", map[string]any{"listingId": table, "content": "Is it still available?"},
			buyer.Auth()).Want(t, http.StatusCreated, "").Data()
		thread := m["threadId"].(string)
		w.step("message to the seller", false, want{typ: "message.received",
			match: map[string]any{"threadId": thread, "messageId": m["id"], "listingId": table, "senderId": buyer.ID,
				"recipientId": seller.ID, "content": "Is it still available?"},
			to: []*testkit.User{seller}, notTo: everyone(seller)})
		r := s.Do("POST", "/api/v1/messages/threads/"+thread+"/reply", map[string]any{"content": "Yes, it is."},
			seller.Auth()).Want(t, http.StatusCreated, "").Data()
		w.step("reply to the buyer", false, want{typ: "message.received",
			match: map[string]any{"threadId": thread, "messageId": r["id"], "senderId": seller.ID, "recipientId": buyer.ID},
			to:    []*testkit.User{buyer.User}, notTo: everyone(buyer.User)})

		// Offers: each to the party that did not act.
		lamp := s.ActiveListing(seller, "Brass desk lamp with a green glass shade", 10000)
		withOffers(lamp)
		w.step("second listing", false, want{typ: "listing.created", match: map[string]any{"listingId": lamp},
			to: []*testkit.User{seller}, notTo: everyone(seller)})
		offer := func(listing string, amount int64) string {
			return s.Do("POST", "/api/v1/agent/offers", map[string]any{"listingId": listing, "offerPrice": amount,
				"message": "Would you take this?", "autoPurchaseOnAccept": false}, buyer.Key.Auth()).
				Want(t, http.StatusCreated, "").Data()["id"].(string)
		}
		offerData := func(id, listing string, extra ...any) map[string]any {
			return testkit.Body(map[string]any{"offerId": id, "listingId": listing, "buyerId": buyer.ID, "sellerId": seller.ID}, extra...)
		}
		o1 := offer(lamp, 6000)
		w.step("offer", false, want{typ: "offer.received", match: offerData(o1, lamp),
			to: []*testkit.User{seller}, notTo: everyone(seller)})
		s.Do("POST", "/api/v1/offers/"+o1+"/counter", map[string]any{"counterPrice": 8000}, seller.Auth()).Want(t, http.StatusOK, "")
		w.step("counter", false, want{typ: "offer.countered", match: offerData(o1, lamp),
			to: []*testkit.User{buyer.User}, notTo: everyone(buyer.User)})
		s.Do("POST", "/api/v1/agent/offers/"+o1+"/accept", nil, buyer.Key.Auth()).Want(t, http.StatusOK, "")
		w.step("accept", false, want{typ: "offer.accepted", match: offerData(o1, lamp, "agreedPrice", 8000),
			to: []*testkit.User{seller}, notTo: everyone(seller)})
		// Bought at the agreed price: the seller sees it, the watchers see
		// the listing as anyone may (its asking price), not the deal.
		watch(watcher2, lamp)
		lampOrder := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": lamp, "maxPrice": 10000, "offerId": o1,
			"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		w.step("bought with the offer", false,
			want{typ: "order.created", match: map[string]any{"orderId": lampOrder, "listingId": lamp, "itemPrice": 8000},
				to: []*testkit.User{buyer.User, seller}, notTo: everyone(buyer.User, seller)},
			want{typ: "listing.sold", match: map[string]any{"listingId": lamp, "orderId": lampOrder, "price": 8000},
				to: []*testkit.User{seller}, notTo: everyone(seller)},
			want{typ: "listing.updated", match: map[string]any{"listingId": lamp, "status": "sold", "price": 10000},
				absent: []string{"orderId"}, to: []*testkit.User{watcher2}, notTo: everyone(watcher2, seller)})
		o2 := offer(table, 6000)
		s.Do("POST", "/api/v1/offers/"+o2+"/reject", nil, seller.Auth()).Want(t, http.StatusOK, "")
		w.step("reject", false,
			want{typ: "offer.received", match: offerData(o2, table), to: []*testkit.User{seller}, notTo: everyone(seller)},
			want{typ: "offer.rejected", match: offerData(o2, table), to: []*testkit.User{buyer.User}, notTo: everyone(buyer.User)})
		o3 := offer(table, 3500) // under the floor (4000 since the change above): rejected at once
		w.step("rejected under the floor", false,
			want{typ: "offer.received", match: offerData(o3, table), to: []*testkit.User{seller}, notTo: everyone(seller)},
			want{typ: "offer.rejected", match: offerData(o3, table), to: []*testkit.User{buyer.User, seller},
				notTo: everyone(buyer.User, seller)})
		o4 := offer(table, 7000)
		w.step("offer to expire", false, want{typ: "offer.received", match: offerData(o4, table), to: []*testkit.User{seller}})
		advance(49)
		w.step("offer expiry", false, want{typ: "offer.expired", match: offerData(o4, table),
			to: []*testkit.User{buyer.User, seller}, notTo: everyone(buyer.User, seller)})

		// A sale: the order to both parties, the sale to the seller, the
		// listing's change to its watchers.
		order := purchase(table, 8000)
		oid := order["id"].(string)
		charged := testkit.Num(t, testkit.Obj(t, order, "fees"), "totalCharged")
		orderData := func(id, listing string, extra ...any) map[string]any {
			return testkit.Body(map[string]any{"orderId": id, "listingId": listing, "buyerId": buyer.ID, "sellerId": seller.ID}, extra...)
		}
		w.step("purchase", false,
			want{typ: "order.created", match: orderData(oid, table, "status", "paid", "itemPrice", 8000, "totalCharged", charged),
				to: []*testkit.User{buyer.User, seller}, notTo: everyone(buyer.User, seller)},
			want{typ: "listing.sold", match: map[string]any{"listingId": table, "orderId": oid, "price": 8000, "sellerId": seller.ID},
				to: []*testkit.User{seller}, notTo: everyone(seller)},
			want{typ: "listing.updated", match: map[string]any{"listingId": table, "status": "sold"},
				to: []*testkit.User{watcher1, watcher2}, notTo: []*testkit.User{buyer.User, stranger, admin}})
		both, others := []*testkit.User{buyer.User, seller}, everyone(buyer.User, seller)
		s.Do("POST", "/api/v1/orders/"+oid+"/ship", map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"},
			seller.Auth()).Want(t, http.StatusOK, "")
		w.step("ship", false, want{typ: "order.shipped",
			match: orderData(oid, table, "status", "shipped", "carrier", "ups", "trackingNumber", "1Z999AA10123456784"),
			to:    both, notTo: others})
		s.Do("POST", "/api/v1/orders/"+oid+"/delivered", nil, buyer.Auth()).Want(t, http.StatusOK, "")
		w.step("delivered", false, want{typ: "order.delivered", match: orderData(oid, table, "status", "delivered"),
			to: both, notTo: others})
		s.Do("POST", "/api/v1/purchases/"+oid+"/refund/seller", map[string]any{"amount": 1000, "reason": "goodwill"},
			seller.Auth()).Want(t, http.StatusOK, "")
		w.step("refund", false, want{typ: "refund.issued", match: orderData(oid, table, "amount", 1000, "amountRefunded", 1000),
			to: both, notTo: others})
		advance(73) // the hold ends: the payout sweep pays the seller
		w.step("payout", false,
			want{typ: "payment.released", match: orderData(oid, table), to: []*testkit.User{seller}, notTo: everyone(seller)},
			want{typ: "order.completed", match: orderData(oid, table, "status", "completed"), to: both, notTo: others})

		// A dispute and a seller's cancellation.
		vase := s.ActiveListing(seller, "Hand-thrown stoneware vase, blue glaze", 3000)
		did := purchase(vase, 3000)["id"].(string)
		w.step("second purchase", false, want{typ: "order.created", match: orderData(did, vase), to: both, notTo: others})
		s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": did, "reason": "not_as_described",
			"description": "The glaze is chipped."}, buyer.Auth()).Want(t, http.StatusCreated, "")
		w.step("dispute", false, want{typ: "order.disputed", match: orderData(did, vase, "status", "disputed"),
			to: both, notTo: others})
		// A cancelled sale puts the listing back on sale: its watchers, who
		// heard it sold, hear it is active again.
		bowls := s.ActiveListing(seller, "Pyrex mixing bowls, set of three", 2000)
		watch(watcher2, bowls)
		cid := purchase(bowls, 2000)["id"].(string)
		w.step("purchase to cancel", false,
			want{typ: "order.created", match: orderData(cid, bowls), to: both, notTo: others},
			want{typ: "listing.updated", match: map[string]any{"listingId": bowls, "status": "sold"},
				to: []*testkit.User{watcher2}, notTo: everyone(watcher2, seller)})
		s.Do("POST", "/api/v1/orders/"+cid+"/cancel", map[string]any{"reason": "out of stock"}, seller.Auth()).Want(t, http.StatusOK, "")
		w.step("cancel", false,
			want{typ: "order.cancelled", match: orderData(cid, bowls, "status", "cancelled"), to: both, notTo: others},
			want{typ: "listing.updated", match: map[string]any{"listingId": bowls, "status": "active", "previousStatus": "sold",
				"price": 2000}, to: []*testkit.User{seller, watcher2}, notTo: everyone(seller, watcher2)})

		// An approval: the owner is asked; a refusal cancels an order the
		// seller never heard of, so only the buyer hears of it.
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000, "approvalThreshold": 1000})
		clock := s.ActiveListing(seller, "Walnut mantel clock, wind-up, keeps time", 2500)
		ar := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": clock, "maxPrice": 2500,
			"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
		approval := ar.JSON["error"].(map[string]any)["details"].(map[string]any)["approvalId"].(string)
		w.step("approval", false, want{typ: "approval.required",
			match: map[string]any{"approvalId": approval, "listingId": clock, "buyerId": buyer.ID, "keyId": buyer.Key.ID},
			to:    []*testkit.User{buyer.User}, notTo: everyone(buyer.User)})
		s.Do("POST", "/api/v1/approvals/"+approval+"/reject", nil, buyer.Auth()).Want(t, http.StatusOK, "")
		w.step("approval refused", false, want{typ: "order.cancelled", match: map[string]any{"listingId": clock, "approvalId": approval},
			to: []*testkit.User{buyer.User}, notTo: everyone(buyer.User)})
		// An approved one goes ahead: now the seller hears of the order.
		kettle := s.ActiveListing(seller, "Enamel camping kettle, one litre, red", 2500)
		ar = s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": kettle, "maxPrice": 2500,
			"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusAccepted, "APPROVAL_REQUIRED")
		approval = ar.JSON["error"].(map[string]any)["details"].(map[string]any)["approvalId"].(string)
		paid := s.Do("POST", "/api/v1/approvals/"+approval+"/approve", nil, buyer.Auth()).Want(t, http.StatusOK, "").Data()
		w.step("approved", false,
			want{typ: "approval.required", match: map[string]any{"approvalId": approval, "listingId": kettle},
				to: []*testkit.User{buyer.User}, notTo: everyone(buyer.User)},
			want{typ: "order.created", match: orderData(paid["id"].(string), kettle, "status", "paid"), to: both, notTo: others},
			want{typ: "listing.sold", match: map[string]any{"listingId": kettle}, to: []*testkit.User{seller}, notTo: everyone(seller)})
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 50000})

		// A key frozen by an admin: its owner hears of it.
		spare := s.NewKey(buyer.User, "buy_only")
		w.keyOwner[spare.ID] = buyer.ID
		s.Do("POST", "/api/v1/admin/users/"+buyer.ID+"/agent-keys/"+spare.ID+"/freeze", nil, admin.Auth()).Want(t, http.StatusOK, "")
		w.step("key frozen", false, want{typ: "agent_key.frozen", match: map[string]any{"keyId": spare.ID, "status": "frozen"},
			to: []*testkit.User{buyer.User}, notTo: everyone(buyer.User)})

		// AI generation finishing in the background (pending_ai).
		maker := w.add(s.VerifiedOwner("Maker"), "maker")
		makerKey := s.NewKey(maker, "sell_only")
		w.keyOwner[makerKey.ID] = maker.ID
		d := s.Do("POST", "/api/v1/agent/listings", map[string]any{"photoUrls": s.UploadPhotos(makerKey.Auth(), 1),
			"description": "Pyrex mixing bowls, set of three, " + slowMark, "price": 2500}, makerKey.Auth()).
			Want(t, http.StatusCreated, "").Data()
		if d["status"] != "pending_ai" {
			t.Fatalf("the slow listing is %v, want pending_ai", d["status"])
		}
		w.step("generation done", true, want{typ: "listing.ai_complete",
			match: map[string]any{"listingId": d["id"], "sellerId": maker.ID, "status": "active", "price": 2500},
			to:    []*testkit.User{maker}, notTo: everyone(maker)})

		// Rolled back: a declined card and a spending cap leave no event.
		radio := s.ActiveListing(seller, "Vintage transistor radio, working", 4000)
		watch(watcher1, radio)
		w.step("listing for the refusals", false, want{typ: "listing.created", match: map[string]any{"listingId": radio},
			to: []*testkit.User{seller}})
		decliner := s.NewShopper("Decliner", "pm_card_chargeDeclined")
		w.add(decliner.User, "decliner")
		s.SetControls(decliner.User, map[string]any{"perTransactionLimit": 50000})
		s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": radio, "maxPrice": 4000,
			"shippingAddress": testkit.Address()}, decliner.Key.Auth()).Want(t, http.StatusPaymentRequired, "PAYMENT_FAILED")
		s.SetControls(buyer.User, map[string]any{"perTransactionLimit": 1000})
		s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": radio, "maxPrice": 4000,
			"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusForbidden, "SPENDING_LIMIT_EXCEEDED")
		radioOnly := map[string]any{"listingId": radio}
		w.step("refused purchases", false,
			want{typ: "order.created", match: radioOnly, notTo: w.users},
			want{typ: "order.cancelled", match: radioOnly, notTo: w.users},
			want{typ: "listing.sold", match: radioOnly, notTo: w.users},
			want{typ: "listing.updated", match: radioOnly, notTo: w.users})
		if st := s.Do("GET", "/api/v1/listings/"+radio, nil).Want(t, http.StatusOK, "").Data()["status"]; st != "active" {
			t.Fatalf("after the refusals the listing is %v", st)
		}

		// Archived: its watchers hear it is gone from sale.
		s.Do("DELETE", "/api/v1/listings/"+radio, nil, seller.Auth()).Want(t, http.StatusOK, "")
		w.step("archived", false, want{typ: "listing.updated",
			match: map[string]any{"listingId": radio, "status": "archived", "previousStatus": "active"},
			to:    []*testkit.User{watcher1}, notTo: everyone(watcher1, seller)})

		// Every public type was produced by some cause above.
		for _, ob := range eventObservers {
			t.Logf("%s: the slowest step's events showed after %v", ob.name, w.lag[ob.name].Round(time.Millisecond))
			for _, typ := range events.Types() {
				if _, ok := w.seenBy[ob.name][typ]; !ok && typ != events.TypeTest {
					t.Errorf("%s: no step produced %s: give it a cause in this test", ob.name, typ)
				}
			}
		}
	})
}
