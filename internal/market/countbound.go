package market

// CountBound is how far an admin list counts the matches of a filter
// beyond its offset: counting every match of a broad filter at a million
// rows took longer than the page. A filtered list that matches more
// reports a total of offset+CountBound+1 and says the total is capped
// (meta.totalCapped); an unfiltered list's total is always exact.
const CountBound = 1_000
