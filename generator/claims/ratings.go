package claims

// Rating is a verdict as a ClaimReview's reviewRating states it, with
// what it means: the one place the scale is defined, for the JSON-LD and
// the methodology page.
type Rating struct {
	Verdict string // as front matter and facts.json write it
	Value   int    // ratingValue, 5 best to 1 worst; 0: none (unverifiable)
	Name    string // alternateName
	Means   string // the definition the methodology page prints
}

// Ratings is the scale, best first.
var Ratings = []Rating{
	{"supported", 5, "Supported", "The artifacts (the checkpoint's files, its config.json, a dated price list) or a measurement give what the claim states. A computed verdict means every machine check of the claim against this site's facts holds; a measurement supports a claim only within its configuration, which the verdict then names as its scope."},
	{"outdated", 3, "Outdated", "The claim held when it was made, but it names a date that has passed before the review (its shelf life), or the artifact it describes has changed since."},
	{"misleading", 2, "Misleading", "The figure or words can be found in a source, but the claim implies more than the artifacts support: a spec-sheet capacity for what the device reports, a precision label for a model stored in several, a single point where the source publishes an interval, a performance figure without the configuration it holds in."},
	{"refuted", 1, "False", "The artifacts give another figure: a machine check fails, or the evidence the page cites contradicts the claim."},
	{"unverifiable", 0, "Unverifiable", "Nothing the reviewer can read decides the claim: no artifact, measurement or dated document gives the figure. It is neither supported nor refuted."},
}

// RatingOf returns the rating of a verdict, and false for an unknown one.
func RatingOf(verdict string) (Rating, bool) {
	for _, r := range Ratings {
		if r.Verdict == verdict {
			return r, true
		}
	}
	return Rating{}, false
}

// TellMeans says what each tell looks for, for the methodology page; the
// detector in this package is what applies it.
var TellMeans = map[int]string{
	TellProduct:   "A size that equals a headline parameter count times a precision's bytes, rounded or not: the figure came from a multiplication, not from the file listing.",
	TellPrecision: `A precision label ("4-bit", "FP8") on a model whose quantization leaves modules out or whose tensors come in several dtypes, unless the sentence limits it to a part ("only the experts").`,
	TellNovelty:   `"New", "novel", "introduces", "first … to" on a mechanism, without a dated artifact (an arXiv id or a date) in the sentence.`,
	TellNoConfig:  `A performance figure, or "runs on a single card", without at least two of model, hardware, batch or context, and date ("on a GPU" names nothing).`,
	TellPointOnly: "A figure quoted without the interval or rank spread its source publishes.",
	TellShelfLife: `Relative time ("later this month", "in two weeks") without the absolute date it resolves to.`,
	TellSpecSheet: "Beside an accelerator's name, its printed per-GPU or per-node memory, or a margin computed from it, where the driver reports another figure.",
}
