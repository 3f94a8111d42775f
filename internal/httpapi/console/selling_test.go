package console_test

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/listings/generator"
	"marketplace/internal/testkit"
)

// sellPart is one field of a multipart form; a file when filename is set.
type sellPart struct {
	name, filename string
	data           []byte
}

func sellField(name, value string) sellPart { return sellPart{name: name, data: []byte(value)} }

// sellUpload posts a multipart form with exactly the parts given, in order
// (the CSRF token is a part like any other, so tests can leave it out).
func sellUpload(b *browser, path string, parts ...sellPart) page {
	b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range parts {
		var w io.Writer
		var err error
		if p.filename != "" {
			w, err = mw.CreateFormFile(p.name, p.filename)
		} else {
			w, err = mw.CreateFormField(p.name)
		}
		if err != nil {
			b.t.Fatal(err)
		}
		_, _ = w.Write(p.data)
	}
	_ = mw.Close()
	return b.send("POST", path, &body, mw.FormDataContentType())
}

// sellStall holds the AI step of a create (bounded by the create's short
// budget) until the create gives up, and lets the job queue's run at once:
// the listing comes back pending_ai and the job finishes it.
type sellStall struct{ next listings.Generator }

func (g sellStall) Generate(ctx context.Context, b listings.Brief) (listings.Draft, error) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < 5*time.Second {
		<-ctx.Done()
		return listings.Draft{}, ctx.Err()
	}
	return g.next.Generate(ctx, b)
}

const sellBrief = "Pyrex 8-cup glass measuring jug, 1970s, small chip on the handle"

var sellCreated = regexp.MustCompile(`^/selling/([0-9a-f-]{36})$`)

// TestSellingCreateEditArchive: a verified seller creates a listing from a
// photo and a brief on the page, waits for the AI step, reviews and edits
// what it wrote, sees it on sale in Selling, and archives it. The upload
// needs the CSRF token like every form; another user gets 404 on the
// listing's pages; a guest is sent to sign in.
func TestSellingCreateEditArchive(t *testing.T) {
	t.Parallel()
	opts := testkit.Options{WithJobs: true, GenerationBudget: 50 * time.Millisecond,
		Generator: sellStall{next: generator.NewBuiltin(listings.DefaultTaxonomy(), nil)}}
	testkit.Run(t, opts, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("Seller")
		b := signIn(t, s, seller, "/selling")
		p := b.get("/selling").want(t, http.StatusOK, "<h1>Selling</h1>", `href="/selling/new"`, "Create a listing", "No listings")
		if strings.Contains(p.body, "not verified") {
			t.Fatal("a verified seller is told to verify")
		}
		b.get("/selling/new").want(t, http.StatusOK, `enctype="multipart/form-data"`, `type="file"`, "multiple", `accept="image/*"`,
			`<label for="n-photos">Photos</label>`, `<label for="n-brief">Describe the item</label>`)
		photo := testkit.JPEG(48, 36)
		mine := func() int {
			return len(s.Do("GET", "/api/v1/listings/seller/me", nil, seller.Auth()).Want(t, http.StatusOK, "").List())
		}

		// CSRF: no token, a forged one, or another visitor's: 403 and
		// nothing created.
		other := newBrowser(t, s)
		other.get("/signin")
		for _, tok := range []string{"", "forged", other.csrf} {
			parts := []sellPart{sellField("description", sellBrief), {name: "photos", filename: "jug.jpg", data: photo}}
			if tok != "" {
				parts = append([]sellPart{sellField("csrf", tok)}, parts...)
			}
			sellUpload(b, "/selling/new", parts...).want(t, http.StatusForbidden, "did not come from this site")
		}
		// A urlencoded post has no photos: refused, nothing created.
		b.get("/selling/new")
		b.post("/selling/new", "description", sellBrief).want(t, http.StatusBadRequest, "choose 1 to 12 photos")
		// A file that is no image is refused, naming it; the brief is kept.
		b.get("/selling/new")
		sellUpload(b, "/selling/new", sellField("csrf", b.csrf), sellField("description", sellBrief),
			sellPart{name: "photos", filename: "notes.txt", data: []byte("not an image at all")}).
			want(t, http.StatusBadRequest, "photo 1 (notes.txt): the file is not a JPEG, PNG or WebP image", sellBrief)
		if n := mine(); n != 0 {
			t.Fatalf("%d listings after refused creates", n)
		}

		// The create: the AI step is still running when it answers.
		p = sellUpload(b, "/selling/new", sellField("csrf", b.csrf), sellField("description", sellBrief),
			sellField("price", ""), sellField("condition", ""), sellField("shippingType", "free"), sellField("shippingCost", ""),
			sellPart{name: "photos", filename: "jug.jpg", data: photo})
		m := sellCreated.FindStringSubmatch(p.header.Get("Location"))
		if p.status != http.StatusSeeOther || m == nil {
			t.Fatalf("create answered %d to %q:\n%s", p.status, p.header.Get("Location"), p.body)
		}
		id := m[1]
		b.get("/selling/"+id).want(t, http.StatusAccepted, "Writing your listing", "<progress", `role="status"`, "data-wait",
			`<script src="/assets/console.js" defer></script>`, `href="/selling/`+id+`">Check again`, "/thumbnail")
		deadline := time.Now().Add(20 * time.Second)
		for {
			p = b.get("/selling/" + id)
			if p.status != http.StatusAccepted {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the AI step did not finish in 20 s")
			}
			time.Sleep(100 * time.Millisecond)
		}
		p.want(t, http.StatusOK, "Review and edit", "Status:</strong> On sale", "Save changes", "Archive", "The AI suggested this price",
			"No offers on this listing yet.", "No buyer has written")
		generated := s.Do("GET", "/api/v1/listings/"+id, nil).Want(t, http.StatusOK, "").Data()
		if generated["title"] == "" || generated["priceSource"] != "ai" {
			t.Fatalf("generated %v", generated)
		}

		// Edit and save what the AI wrote; the title is markup, shown as text.
		title := `<script>x</script> Pyrex jug`
		edit := []string{"title", title, "description", "Measuring jug.\nSmall chip on the handle.", "price", "24.50",
			"brand", "Pyrex", "condition", "fair", "shippingType", "flat_rate", "shippingCost", "6.00", "acceptOffers", "on",
			"minOfferAmount", "15", "floorPrice", "", "weightOz", "40"}
		b.post("/selling/"+id, edit...).redirect(t, "/selling/"+id+"?saved=1")
		p = b.get("/selling/"+id+"?saved=1").want(t, http.StatusOK, "Your changes are saved", `&lt;script&gt;x&lt;/script&gt; Pyrex jug`,
			`value="24.50"`, `value="6.00"`, `value="15.00"`, `<option value="fair" selected>`, `<option value="flat_rate" selected>`)
		if strings.Contains(p.body, "<script>x</script>") {
			t.Fatal("the title is not escaped")
		}
		got := s.Do("GET", "/api/v1/listings/"+id, nil).Want(t, http.StatusOK, "").Data()
		if got["title"] != title || got["price"] != 2450.0 || got["shippingCost"] != 600.0 || got["condition"] != "fair" ||
			got["minOfferAmount"] != 1500.0 || got["priceSource"] != "seller" || got["status"] != "active" {
			t.Fatalf("after the edit %v", got)
		}
		// Refusals: the form again with the typed values, nothing saved.
		bad := append([]string{}, edit...)
		bad[5] = "12.345"
		b.post("/selling/"+id, bad...).want(t, http.StatusBadRequest, "Price must be an amount in dollars and cents", `value="12.345"`)
		bad = append([]string{}, edit...)
		bad[11], bad[13] = "free", "5.00"
		b.post("/selling/"+id, bad...).want(t, http.StatusBadRequest, "<strong>Shipping cost</strong>: applies only to flat_rate and both shipping")
		if got := s.Do("GET", "/api/v1/listings/"+id, nil).Want(t, http.StatusOK, "").Data(); got["price"] != 2450.0 || got["shippingType"] != "flat_rate" {
			t.Fatalf("a refused edit changed the listing: %v", got)
		}

		// It shows in Selling, on sale, filtered and not.
		b.get("/selling").want(t, http.StatusOK, `href="/selling/`+id+`"`, `&lt;script&gt;x&lt;/script&gt; Pyrex jug`, "$24.50", "On sale")
		b.get("/selling?status=active").want(t, http.StatusOK, `href="/selling/`+id+`"`)
		if p := b.get("/selling?status=sold").want(t, http.StatusOK, "No listings with this status"); strings.Contains(p.body, id) {
			t.Fatal("the sold filter shows an active listing")
		}
		b.get("/selling?status=bogus").want(t, http.StatusBadRequest, "unknown listing status")

		// Another user: the listing's pages are not found; nothing changes.
		intruder := signIn(t, s, s.VerifiedOwner("Intruder"), "/selling")
		intruder.get("/selling/"+id).want(t, http.StatusNotFound)
		intruder.post("/selling/"+id, edit...).want(t, http.StatusNotFound)
		intruder.post("/selling/"+id+"/archive").want(t, http.StatusNotFound)
		if p := intruder.get("/selling").want(t, http.StatusOK); strings.Contains(p.body, id) {
			t.Fatal("another seller's listing is in Selling")
		}

		// Archive: off sale, gone from the public view, still the seller's.
		b.get("/selling/" + id)
		b.post("/selling/"+id+"/archive").redirect(t, "/selling/"+id)
		p = b.get("/selling/"+id).want(t, http.StatusOK, "Status:</strong> Archived", "off sale")
		if strings.Contains(p.body, `/archive"`) {
			t.Fatal("an archived listing offers Archive again")
		}
		s.Do("GET", "/api/v1/listings/"+id, nil).Want(t, http.StatusNotFound, "LISTING_NOT_FOUND")
		b.get("/selling?status=archived").want(t, http.StatusOK, `href="/selling/`+id+`"`)

		// A guest is sent to sign in, and cannot post.
		guest := newBrowser(t, s)
		guest.get("/selling").redirect(t, "/signin?next=%2Fselling")
		guest.get("/selling/new").redirect(t, "/signin?next=%2Fselling%2Fnew")
		guest.get("/selling/"+id).redirect(t, "/signin?next=%2Fselling%2F"+id)
		guest.get("/signin")
		sellUpload(guest, "/selling/new", sellField("csrf", guest.csrf), sellField("description", sellBrief),
			sellPart{name: "photos", filename: "jug.jpg", data: photo}).want(t, http.StatusUnauthorized)
		if n := mine(); n != 1 {
			t.Fatalf("%d listings, want the one created", n)
		}
	})
}

// TestSellingScript: the waiting page's script is served, as JavaScript.
func TestSellingScript(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		js := newBrowser(t, s).get("/assets/console.js").want(t, http.StatusOK, "data-wait", "202")
		if ct := js.header.Get("Content-Type"); !strings.Contains(ct, "javascript") {
			t.Fatalf("console.js served as %q", ct)
		}
	})
}

// TestSellingOffersAndMessages: a buyer's offer, made through the API, is
// countered by the seller on the listing's page and accepted by the buyer
// on Offers; the buyer's message is answered on the listing's page and both
// see the thread on Messages. Text the other party wrote is escaped;
// another user's offer and thread are 404; answering out of turn is the
// API's refusal.
func TestSellingOffersAndMessages(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("Seller")
		listing := s.ActiveListing(seller, sellBrief, 2500)
		s.Do("PATCH", "/api/v1/listings/"+listing, map[string]any{"title": `<b>Jug</b> & "co"`}, seller.Auth()).Want(t, http.StatusOK, "")
		buyer := s.Register("Buyer")
		offer := s.Do("POST", "/api/v1/offers", map[string]any{"listingId": listing, "offerPrice": 1500,
			"message": "<i>would you take</i> 15?"}, buyer.Auth()).Want(t, http.StatusCreated, "").Data()
		offerID := offer["id"].(string)
		s.Do("POST", "/api/v1/messages", map[string]any{"listingId": listing, "content": "<script>alert(1)</script> Is it chipped?"},
			buyer.Auth()).Want(t, http.StatusCreated, "")

		// The seller sees both on the listing's page, escaped.
		sb := signIn(t, s, seller, "/selling")
		p := sb.get("/selling/"+listing).want(t, http.StatusOK, "$15.00</strong> from Buyer", "Waiting for an answer",
			"&lt;i&gt;would you take&lt;/i&gt; 15?", "Counter amount", "Accept $15.00 from Buyer", "Decline",
			"Conversation with Buyer", "unread", "&lt;script&gt;alert(1)&lt;/script&gt; Is it chipped?", "Reply to Buyer",
			"&lt;b&gt;Jug&lt;/b&gt; &amp; &#34;co&#34;")
		for _, raw := range []string{"<i>would", "<script>alert", "<b>Jug"} {
			if strings.Contains(p.body, raw) {
				t.Fatalf("%q is not escaped:\n%s", raw, p.body)
			}
		}
		if counter := p.find(t, `action="/offers/([0-9a-f-]{36})/counter"`, "Counter form"); counter != offerID {
			t.Fatalf("the Counter form is for offer %s, want %s", counter, offerID)
		}

		// Counter on the page; a bad amount is refused first.
		sb.post("/offers/"+offerID+"/counter", "counterPrice", "twenty", "next", "/selling/"+listing).
			want(t, http.StatusBadRequest, "Counter amount must be an amount in dollars and cents")
		sb.post("/offers/"+offerID+"/counter", "counterPrice", "20.00", "next", "/selling/"+listing).redirect(t, "/selling/"+listing)
		p = sb.get("/selling/"+listing).want(t, http.StatusOK, "$20.00</strong> from Buyer", "Countered", "round 2 of")
		if strings.Contains(p.body, "/offers/"+offerID+"/accept") {
			t.Fatal("the seller may accept an offer that waits for the buyer")
		}
		// Answering out of turn is the API's refusal, shown on Offers.
		sb.post("/offers/"+offerID+"/accept", "next", "/selling/"+listing).want(t, http.StatusForbidden, "waits for the buyer")

		// The buyer accepts the counter on Offers.
		bb := signIn(t, s, buyer, "/selling")
		p = bb.get("/offers").want(t, http.StatusOK, "Offers you made", "$20.00", "Countered", "to Seller", "waiting for your answer",
			`action="/offers/`+offerID+`/accept"`, "Withdraw", `href="/listings/`+listing+`"`, "&lt;b&gt;Jug&lt;/b&gt;")
		bb.post("/offers/"+offerID+"/accept").redirect(t, "/offers")
		got := s.Do("GET", "/api/v1/offers/"+offerID, nil, buyer.Auth()).Want(t, http.StatusOK, "").Data()
		if got["status"] != "accepted" || got["agreedPrice"] != 2000.0 {
			t.Fatalf("the offer after acceptance: %v", got)
		}
		p = bb.get("/offers").want(t, http.StatusOK, "Accepted", "agreed at $20.00")
		if strings.Contains(p.body, "/offers/"+offerID+"/") {
			t.Fatal("an accepted offer still has actions")
		}
		sb.get("/offers").want(t, http.StatusOK, "Offers you received", "Accepted", "from Buyer", `href="/selling/`+listing+`"`)

		// Someone else's offer is not found.
		nosy := signIn(t, s, s.Register("Nosy"), "/selling")
		nosy.post("/offers/"+offerID+"/reject").want(t, http.StatusNotFound)
		nosy.post("/offers/"+offerID+"/withdraw").want(t, http.StatusNotFound)

		// Messages: the unread counts are the API's (offer rounds are
		// messages in the thread too).
		unread := func(u *testkit.User) string {
			n := s.Do("GET", "/api/v1/messages/unread", nil, u.Auth()).Want(t, http.StatusOK, "").Data()["unreadCount"].(float64)
			return strconv.Itoa(int(n)) + " unread"
		}
		p = sb.get("/messages").want(t, http.StatusOK, "<h1>Messages</h1>", unread(seller), "with Buyer",
			"&lt;b&gt;Jug&lt;/b&gt;")
		thread := p.find(t, `href="/messages/([0-9a-f-]{36})"`, "thread link")
		// The seller answers from the listing's page, and reads the thread.
		sb.get("/selling/" + listing)
		sb.post("/messages/"+thread, "content", "No chips <b>at all</b>", "next", "/selling/"+listing).redirect(t, "/selling/"+listing)
		p = sb.get("/messages/"+thread).want(t, http.StatusOK, "Conversation with Buyer", "&lt;script&gt;alert(1)&lt;/script&gt; Is it chipped?",
			"No chips &lt;b&gt;at all&lt;/b&gt;", "<strong>You</strong>", "<strong>Buyer</strong>", `<label for="t-reply">Reply</label>`)
		if strings.Contains(p.body, "<b>at all") || strings.Contains(p.body, "<script>alert") {
			t.Fatal("a message is not escaped")
		}
		if n := unread(seller); n != "0 unread" {
			t.Fatalf("the seller read the thread, %s", n)
		}
		sb.post("/messages/"+thread, "content", "   ").want(t, http.StatusBadRequest, "<strong>Message</strong>: is required")

		// The buyer sees the answer and writes again on the thread's page.
		bb.get("/messages").want(t, http.StatusOK, unread(buyer), "with Seller", `href="/messages/`+thread+`"`)
		bb.get("/messages/"+thread).want(t, http.StatusOK, "Conversation with Seller", "No chips &lt;b&gt;at all&lt;/b&gt;",
			"<strong>Seller</strong>", `href="/listings/`+listing+`"`)
		bb.post("/messages/"+thread, "content", "Great, thanks").redirect(t, "/messages/"+thread)
		sb.get("/messages").want(t, http.StatusOK, "<strong>1 unread</strong>", "Great, thanks")
		msgs := s.Do("GET", "/api/v1/messages/threads/"+thread, nil, buyer.Auth()).Want(t, http.StatusOK, "").List()
		if last := msgs[len(msgs)-1].(map[string]any); last["content"] != "Great, thanks" {
			t.Fatalf("the thread ends with %v", last)
		}

		// Someone else's thread is not found; a guest signs in first.
		nosy.get("/messages/"+thread).want(t, http.StatusNotFound)
		nosy.get("/messages")
		nosy.post("/messages/"+thread, "content", "hello").want(t, http.StatusNotFound)
		guest := newBrowser(t, s)
		guest.get("/offers").redirect(t, "/signin?next=%2Foffers")
		guest.get("/messages").redirect(t, "/signin?next=%2Fmessages")
		guest.get("/messages/"+thread).redirect(t, "/signin?next=%2Fmessages%2F"+thread)

		// A member who is not verified learns what the API would refuse.
		bb.get("/selling").want(t, http.StatusOK, "Your identity is not verified yet", "OWNER_NOT_VERIFIED", `href="/payouts"`)
	})
}
