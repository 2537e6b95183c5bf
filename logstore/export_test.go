package logstore

// WithoutScrub turns the start-up scrub off, for the external tests of
// damage met by a query (the scrub would find it first).
func WithoutScrub(o Options) Options {
	o.noScrub = true
	return o
}
