package accounts_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

func validAddress() accounts.Address {
	return accounts.Address{Name: "Ada Lovelace", Line1: "1 Market St", Line2: "Suite 5", City: "San Francisco",
		State: "CA", Zip: "94105", Country: "US", Phone: "+1 415 555 0100"}
}

// TestCheckAddress: a postal address's rules, US and elsewhere, and its
// normalisation.
func TestCheckAddress(t *testing.T) {
	with := func(f func(*accounts.Address)) accounts.Address {
		a := validAddress()
		f(&a)
		return a
	}
	long := func(n int) string { return strings.Repeat("x", n) }
	gb := func(f func(*accounts.Address)) accounts.Address {
		return with(func(a *accounts.Address) { a.Country, a.State, a.Zip = "GB", "", "SW1A 2AA"; f(a) })
	}
	for _, tc := range []struct {
		name   string
		a      accounts.Address
		fields []string
	}{
		{"valid", validAddress(), nil},
		{"nothing", accounts.Address{}, []string{"city", "line1", "state", "zip"}},
		{"blank line1", with(func(a *accounts.Address) { a.Line1 = "   " }), []string{"line1"}},
		{"line1 of 200", with(func(a *accounts.Address) { a.Line1 = long(200) }), nil},
		{"line1 of 201", with(func(a *accounts.Address) { a.Line1 = long(201) }), []string{"line1"}},
		{"line2 of 201", with(func(a *accounts.Address) { a.Line2 = long(201) }), []string{"line2"}},
		{"no city", with(func(a *accounts.Address) { a.City = "" }), []string{"city"}},
		{"city of 101", with(func(a *accounts.Address) { a.City = long(101) }), []string{"city"}},
		{"name of 80 runes", with(func(a *accounts.Address) { a.Name = strings.Repeat("é", 80) }), nil},
		{"name of 81", with(func(a *accounts.Address) { a.Name = long(81) }), []string{"name"}},
		{"phone of 33", with(func(a *accounts.Address) { a.Phone = long(33) }), []string{"phone"}},
		{"US without state", with(func(a *accounts.Address) { a.State = "" }), []string{"state"}},
		{"US state in lower case", with(func(a *accounts.Address) { a.State = " ca " }), nil},
		{"US territory", with(func(a *accounts.Address) { a.State = "PR" }), nil},
		{"unknown US state", with(func(a *accounts.Address) { a.State = "ZZ" }), []string{"state"}},
		{"state spelled out", with(func(a *accounts.Address) { a.State = "California" }), []string{"state"}},
		{"US zip+4", with(func(a *accounts.Address) { a.Zip = "94105-1234" }), nil},
		{"US zip of 4", with(func(a *accounts.Address) { a.Zip = "9410" }), []string{"zip"}},
		{"US zip of 6", with(func(a *accounts.Address) { a.Zip = "941050" }), []string{"zip"}},
		{"US zip+4 short", with(func(a *accounts.Address) { a.Zip = "94105-12" }), []string{"zip"}},
		{"US zip letters", with(func(a *accounts.Address) { a.Zip = "ABCDE" }), []string{"zip"}},
		{"US without zip", with(func(a *accounts.Address) { a.Zip = "" }), []string{"zip"}},
		{"country left out means US", with(func(a *accounts.Address) { a.Country = "" }), nil},
		{"country in lower case", with(func(a *accounts.Address) { a.Country = "us" }), nil},
		{"country of 3", with(func(a *accounts.Address) { a.Country = "USA" }), []string{"country"}},
		{"country with digit", with(func(a *accounts.Address) { a.Country = "U1" }), []string{"country"}},
		{"foreign, free-form postcode, no state", gb(func(*accounts.Address) {}), nil},
		{"foreign without zip", gb(func(a *accounts.Address) { a.Zip = "" }), []string{"zip"}},
		{"foreign zip of 16", gb(func(a *accounts.Address) { a.Zip = long(16) }), nil},
		{"foreign zip of 17", gb(func(a *accounts.Address) { a.Zip = long(17) }), []string{"zip"}},
		{"foreign state of 101", gb(func(a *accounts.Address) { a.State = long(101) }), []string{"state"}},
		{"state and zip wrong", with(func(a *accounts.Address) { a.State, a.Zip = "XX", "1" }), []string{"state", "zip"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c market.Check
			a := tc.a
			accounts.CheckAddress(&c, "", &a)
			if got := fieldsOf(c.Err()); !slices.Equal(got, tc.fields) {
				t.Fatalf("fields %v, want %v", got, tc.fields)
			}
		})
	}

	// Trimmed, country defaulted and upper-cased, a US state upper-cased;
	// a prefix names nested fields.
	a := accounts.Address{Name: " Ann ", Line1: " 1 Main St ", City: "  Town ", State: " ny", Zip: " 10001 "}
	var c market.Check
	accounts.CheckAddress(&c, "", &a)
	if err := c.Err(); err != nil || a != (accounts.Address{Name: "Ann", Line1: "1 Main St", City: "Town", State: "NY", Zip: "10001", Country: "US"}) {
		t.Errorf("normalised: %+v %v", a, err)
	}
	b := accounts.Address{Line1: "x", City: "y", Country: "gb", State: " Kent ", Zip: "x"}
	accounts.CheckAddress(&c, "", &b)
	if b.Country != "GB" || b.State != "Kent" {
		t.Errorf("foreign: %+v", b)
	}
	var p market.Check
	accounts.CheckAddress(&p, "shipping_address.", &accounts.Address{})
	if got := fieldsOf(p.Err()); !slices.Equal(got, []string{"shipping_address.city", "shipping_address.line1", "shipping_address.state", "shipping_address.zip"}) {
		t.Errorf("prefixed fields %v", got)
	}
}

// TestAddressBook: the first address is the default, asking moves the
// default, deleting the default promotes the newest remaining one, the
// book holds MaxAddresses per account, and another account's address is
// not found.
func TestAddressBook(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		u := f.register(registration("addy@example.com"))
		other := f.register(registration("otto@example.com"))
		add := func(who *accounts.User, line1 string, makeDefault bool) *accounts.Address {
			t.Helper()
			a := validAddress()
			a.Line1 = line1
			got, err := f.svc.AddAddress(ctx, actor(who), a, makeDefault)
			if err != nil {
				t.Fatalf("add %s: %v", line1, err)
			}
			f.clock.Advance(time.Second) // so "newest" is well defined
			return got
		}
		// book lists ids in order and the default, checking there is one
		// default exactly when there are addresses, listed first.
		book := func(who *accounts.User) (ids []string, def string) {
			t.Helper()
			list, err := f.svc.Addresses(ctx, actor(who))
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range list {
				ids = append(ids, a.ID)
				if a.IsDefault {
					if def != "" {
						t.Fatalf("two defaults: %s and %s", def, a.ID)
					}
					def = a.ID
				}
			}
			if len(ids) > 0 && ids[0] != def {
				t.Fatalf("default %q is not first in %v", def, ids)
			}
			return ids, def
		}

		a1 := add(u, "1 First St", false)
		if !a1.IsDefault || a1.UserID != u.ID || !a1.CreatedAt.Equal(t0) {
			t.Fatalf("the first address is not the default: %+v", a1)
		}
		a2 := add(u, "2 Second St", false)
		if a2.IsDefault {
			t.Error("a later address became the default unasked")
		}
		a3 := add(u, "3 Third St", true)
		if _, def := book(u); !a3.IsDefault || def != a3.ID {
			t.Errorf("makeDefault: default %s, want %s", def, a3.ID)
		}
		a4 := add(u, "4 Fourth St", false)

		got, err := f.svc.SetDefaultAddress(ctx, actor(u), a1.ID)
		if err != nil || got.ID != a1.ID || !got.IsDefault {
			t.Fatalf("set default: %+v %v", got, err)
		}
		if _, err := f.svc.SetDefaultAddress(ctx, actor(u), a1.ID); err != nil {
			t.Errorf("set the default again: %v", err)
		}
		// Deleting a non-default leaves the default; deleting the default
		// promotes the newest remaining one (a4, not a2).
		if err := f.svc.DeleteAddress(ctx, actor(u), a3.ID); err != nil {
			t.Fatal(err)
		}
		if _, def := book(u); def != a1.ID {
			t.Errorf("after deleting a non-default: default %s, want %s", def, a1.ID)
		}
		if err := f.svc.DeleteAddress(ctx, actor(u), a1.ID); err != nil {
			t.Fatal(err)
		}
		if ids, def := book(u); def != a4.ID || !slices.Equal(ids, []string{a4.ID, a2.ID}) {
			t.Errorf("after deleting the default: %v, default %s; want default %s", ids, def, a4.ID)
		}

		// Unknown, malformed, deleted and another account's ids are not found.
		theirs := add(other, "9 Other St", false)
		for _, id := range []string{market.NewID(), "not-an-id", "", a1.ID, theirs.ID} {
			wantCode(t, "delete "+id, f.svc.DeleteAddress(ctx, actor(u), id), market.CodeNotFound)
			_, err := f.svc.SetDefaultAddress(ctx, actor(u), id)
			wantCode(t, "default "+id, err, market.CodeNotFound)
		}
		if ids, def := book(other); def != theirs.ID || len(ids) != 1 {
			t.Errorf("the other account's book changed: %v %s", ids, def)
		}

		// A refused address is not saved.
		if _, err := f.svc.AddAddress(ctx, actor(u), accounts.Address{Line1: "x"}, true); market.CodeOf(err) != market.CodeValidation {
			t.Errorf("invalid address: %v", err)
		}
		// With none left, the next one is the default again.
		for _, id := range []string{a2.ID, a4.ID} {
			if err := f.svc.DeleteAddress(ctx, actor(u), id); err != nil {
				t.Fatal(err)
			}
		}
		if a := add(u, "5 Fifth St", false); !a.IsDefault {
			t.Error("the only address is not the default")
		}

		// The limit, per account; deleting one frees a slot.
		var last *accounts.Address
		for i := 1; i < accounts.MaxAddresses; i++ {
			last = add(u, fmt.Sprintf("%d Main St", i), false)
		}
		a := validAddress()
		_, err = f.svc.AddAddress(ctx, actor(u), a, false)
		if e := market.ErrorOf(err); e.Code != market.CodeValidation || !strings.Contains(e.Message, "20") {
			t.Fatalf("address %d: %+v", accounts.MaxAddresses+1, e)
		}
		if ids, _ := book(u); len(ids) != accounts.MaxAddresses {
			t.Errorf("%d addresses, want %d", len(ids), accounts.MaxAddresses)
		}
		add(other, "10 Other St", false)
		if err := f.svc.DeleteAddress(ctx, actor(u), last.ID); err != nil {
			t.Fatal(err)
		}
		add(u, "21 Main St", false)
	})
}

// TestShipFrom: the ship-from address follows the address rules, is
// replaced whole, and is not a saved shipping address.
func TestShipFrom(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		u := f.register(registration("sela@example.com"))
		_, err := f.svc.SetShipFrom(ctx, actor(u), accounts.Address{City: "x"})
		if got := fieldsOf(err); !slices.Equal(got, []string{"line1", "state", "zip"}) {
			t.Errorf("invalid ship-from: fields %v", got)
		}
		a := validAddress()
		a.State = "ca"
		got, err := f.svc.SetShipFrom(ctx, actor(u), a)
		if err != nil || got.ShipFrom == nil || got.ShipFrom.State != "CA" || got.ShipFrom.Line2 != "Suite 5" {
			t.Fatalf("ship-from: %+v %v", got, err)
		}
		next := accounts.Address{Line1: "2 Harbor Way", City: "Oakland", State: "CA", Zip: "94607-1234"}
		if _, err := f.svc.SetShipFrom(ctx, actor(u), next); err != nil {
			t.Fatal(err)
		}
		sf := mustUser(t, f, u.ID).ShipFrom
		if sf == nil || sf.Line2 != "" || sf.Name != "" || sf.Phone != "" || sf.Line1 != "2 Harbor Way" || sf.Country != "US" || sf.ID != "" {
			t.Errorf("not replaced whole: %+v", sf)
		}
		if list, _ := f.svc.Addresses(ctx, actor(u)); len(list) != 0 {
			t.Errorf("the ship-from address is in the address book: %+v", list)
		}
	})
}

func mustUser(t *testing.T, f *fixture, id string) *accounts.User {
	t.Helper()
	u, err := f.svc.User(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
