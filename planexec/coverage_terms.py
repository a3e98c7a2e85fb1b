"""What a clause or an action names, for the coverage decision: its objects and its specifics, said or denied.

"Peak detection without deconvolution" names deconvolution only to deny it, and "extract the
traces, no neuropil correction" asks for no neuropil: a negated phrase is kept apart, so an
action that does what the clause denies (or denies what the clause asks) is rejected instead of
matched on the shared word. An action's objects come from its text and from the variables it
reads and writes (a capability on `roi_traces` works on cells even if its text never says so).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from planexec.clause_asides import without_asides, without_makers
from planexec.knowledge.reuse import Terms, extract_terms
from planexec.number_words import digits

# File formats no reader here opens (tables are csv, tsv or json; curves npy or csv; movies png, tiff, npy or h5).
_FOREIGN_FILES = (r"\.(?:xlsx?|parquet|feather|sav|dta|rds|sqlite|db|mat|zip|roi)\b|\broi ?sets?\b|\bimagej rois?\b|"
                  r"\bmatlab (?:\.mat |v\d+ )?(?:files?|structs?|formats?|workspaces?)\b")
_FOREIGN_FILE_RE = re.compile(_FOREIGN_FILES, re.IGNORECASE)
# What a clause is about: an action that never names one of these objects does not work on it
# ("count the events" is not served by a cell counter, "watershed on the curves" not by image segmentation).
_OBJECTS = {
    "cell": r"\bcells?\b|\bneurons?\b|\brois?\b|\bsomat\w*|cell bod\w*|regions? of interest|\bper-cell\b",
    # a peak of the image ("peak image", "local peaks", "peak seeds") is a place or a projection, not an event
    "event": r"\bevents?\b|\btransients?\b|\bspikes?\b|(?<!seeds at )(?<!seed per )(?<!local )(?<!intensity )(?<!brightness )(?<!bright )(?<!brightest )(?<!those )(?<!these )\bpeaks?\b"
             r"(?![- ](?:over[- ]time[- ])?(?:projection|intensity|brightness|value|image|frame|seed)s?\b)"
             # "do they fire together" asks a correlation, not the events
             r"|(?<!nothing )(?<!never )(?<!sparse-)(?<!sparse )(?<!sparsely )(?<!rarely )\bfir(?:e|es|ing)\b(?! (?:together|in sync|synchronously|at the same time))",
    # "in pixels", "50 pixels" and "per 100 frames" are units of a size or a rate, not the image
    "image": r"\bimages?\b(?! files?\b)|(?<!\d )\bframes?\b|\bmovie\b|(?<!offset )(?<!vertical )\bstack\b(?! (?:the|them|all|up|each|every|of (?:\S+ ){0,2}(?:lines|traces|curves|plots))\b)"
             r"|(?<!\bin )(?<!\d )\bpixels?\b|\bprojection\b|\brecording\b|field of view",
    "curve": r"\bcurves?\b(?! (?:for|of|per) (?:each |every |the )?(?:cell|roi|neuron))|\bensemble\b",
    "table": r"\btables?\b|\bcolumns?\b|\brevenue\b|\bsales\b|(?<!one )(?<!per )(?<!own )\brows?\b(?!,? ?(?:and |/)?col)(?! per\b)|\bcsv\b|\bspreadsheet\b",
    # "time series" is left out: Fiji calls a movie one, others a trace
    "trace": r"\btraces?\b|\btime[- ]?courses?\b|\bd\s*f\s*/\s*f0?\b|[δΔ]\s*f\s*/\s*f|\bdff\b",
    "neuropil": r"\bneuropil\b|\blocal background\b|\bsurrounding tissue\b|\bpixel ring\b|\bring (?:of pixels )?around (?:the|each|every) (?:cell|roi|soma)\b|\b(?:glow|haze|light) (?:of|from) (?:the )?surround\w*|\bbackground (?:around|surrounding|near)\b|\bsurround(?:ing)? (?:signal|ring|annulus|background)\b",
    "vessel": r"\bvessels?\b|\bdendrit\w*|\baxons?\b",
    # things no action here works on: a clause about them is not served whatever its wording
    "foreign": r"\baudio\b|\bpodcasts?\b|\bsound\b|\bspeech\b|\bvoice\b|\bmusic\b|\bsongs?\b|\bgenom\w*|\bdna\b|"
               r"\brna\b|\bproteins?\b|\bstocks?\b|\bweather\b|\bemails?\b|\bwebsites?\b|\bphotos?\b|"
               + _FOREIGN_FILES,
    "paper": r"\bpapers?\b|\bliterature\b|\bpublications?\b|\breferences\b|\b(?:a|the|any|some) reference (?:for|on|"
             r"about|that|which|to)\b|\bquot(?:e|es|ing)\b(?! (?:the |a |an |that |this )?(?:mean|median|average|number|figure|value|price|revenue|total)s?\b)|\bexcerpts?\b|\bthe text (?:that |which )?(?:explain|describ|"
             r"defin)\w*|\bcit(?:e|es|ation|ations)\b|\bpassages?\b|\bsources? (?:for|on|about)\b|\bknowledge base\b|"
             r"\bmethod notes\b|\bdocs\b|\bdocumentation\b|\bguidance\b|\bguidelines?\b",
}
_OBJECT_RES = {k: re.compile(v, re.IGNORECASE) for k, v in _OBJECTS.items()}

# The objects a run variable holds, by a word of its name (images_registered -> image, roi_traces -> cell).
_VARIABLE_OBJECTS = (
    ("image", re.compile(r"image|frame|movie|reg_offsets")),
    ("cell", re.compile(r"cell|roi|^stat$|^f$|dff|trace|spks|diameter|correlation_matrix")),
    ("event", re.compile(r"event|transient|spks|rise|decay|amplitude")),
    ("trace", re.compile(r"trace|dff|^f$|^fneu$|baseline|spks")),
    ("neuropil", re.compile(r"^fneu$|neuropil")),
    ("curve", re.compile(r"curve|^statistics")),
    ("table", re.compile(r"table|column")),
)

# A denial and the few words it covers: "without neuropil correction", "no figure", "not deconvolved"
# ("cell or not" denies nothing).
# "not counting the rejected ROIs" and "excluding" leave something out, like "except"; "don't need a plot" denies one.
_NEGATED = re.compile(r"\b(?<![-/])(?:(?:there['’]?s )?no need (?:to|for)(?: \w+ly)?|(?:don['’]?t|do not|no need to) bother (?:with|about|to|running|doing)|without(?! (?:being )?(?:dragged|pulled|biased|affected|thrown off|fooled|distorted)\b)|(?<!yes/)(?<!yes or )no|nothing|not counting|excluding|leaving out|(?<!\bor )not(?! (?:just|only|merely)\b)|w/o|instead of|(?<!soma )(?<!cell )(?<!neuron )(?<!real )rather than|"
                      r"except|(?:don|doesn|won)['’]?t(?! know\b)(?: (?:need|want))?|no need for)\b(?:\s+(?:going|passing) through|\s+(?:using|doing|running|applying|run|use|do|apply|perform))?(?:\s+any)?((?:\s+an?\b)?(?:\s+(?!or\b)[\w/'-]+){1,3}(?:\s+or(?:\s+any)?(?:\s+[\w/'-]+){1,3})?)",
                      re.IGNORECASE)


_DOING = ("task", "action")
"""Term groups that say what a thing does, read from its name, title and examples only."""


# What a clause is for, or the stretch of time it spans, is not what it works on: "a correlation map to find
# dim active cells" works on the movie, "a baseline that follows bleaching over the recording" on traces.
_PURPOSE = re.compile(r"\bfor (?:testing|benchmarking|validating|debugging|trying out|demonstrating|teaching|calibrating) "
                      r"(?:(?!\b(?:we|i|please|could|can|would)\b)[^,.;:?!])*|"
                      r"\b(?:(?:to|in order to)\s+(?:find|spot|see|locate|identify|reveal|highlight|try|test|check)|"
                      # "labels 0 to N-1 to match the trace indices", "so that the counts downstream only include neurons"
                      r"(?<=\w )(?<!you )(?<!me )(?<!us )to match\b|so that (?:the )?(?:[\w-]+ ){0,3}?(?:only )?(?:include|exclude|"
                      r"contain|reflect)s?\b|"
                      r"(?:it|this|that)['’]?s for\b|(?:to|so|want to|plan to|going to)\b[^.?!;]*\b(?:later|afterwards|after that)\b|"
                      r"so (?:that )?(?:i|we|you) can|so (?:that )?(?:[\w.%/-]+\s+){1,10}?(?:jumps?|stands?|pops?|sticks?) out\b|so (?:that )?(?:\w+(?:\.\d+)?%?\s+){1,5}?(?:can|could|will|does|doesn'?t|don'?t|means?|match(?:es)?|line up|correspond|ignores|skips|avoids|misses|"
                      r"won'?t|pops?|stands?|shows?|appears?|comes?|separates?|(?:are|is|become|becomes|stay|stays) (?:\w+ )?(?:comparable|consistent|"
                      r"visible|clearer|clear|easier|readable|aligned|stable|similar|on the same scale))\b|\b(?:that |which )?(?:i|we) (?:can|could) (?:test|try|use|run|check)\b)\b"
                      r"(?:[^.?!:;]|\.(?=\d))*",  # to the end of its sentence or colon: the ask may follow
                      re.IGNORECASE)
_LEADING_PURPOSE = re.compile(r"(?:^|(?<=[.!?]\s))\s*(?:(?:hi|hello|hey)(?: \w+)?[,!]\s+)?(?:in order )?to\s+(?:find|spot|see|locate|identify|reveal|highlight|check|"
                              r"compare|judge|assess|make sure)\b[^,.;?!]*,", re.IGNORECASE)
"""A purpose that opens a sentence ("To see whether the field creeps between trials, I'd like ..."): up to its comma."""
_SPAN = re.compile(r"\b(?:over|across|during|through|throughout|in)\s+(?:all\s+)?(?:the\s+|this\s+|that\s+)?(?:whole\s+|"
                   r"entire\s+)?(?:recording|movie|session|acquisition)\b", re.IGNORECASE)


# What a clause says its input already went through is not a task it asks: "segment the registered movie".
_DONE_TO_INPUT = re.compile(r"\bafter (?:the )?(?:classification|segmentation|registration|curation|deconvolution|motion correction)\b|"
                            # "neuropil correction and the running baseline are done"
                            r"\b[\w /-]{0,60}? (?:are|is|were|was|have been|has been) (?:already )?(?:done|finished|complete|completed|ready)\b|"
                            r"\b(?:(?:already|previously) )?regist(?:e)?red (?=movie|stack|recording|data|frames)|"
                            # "I already make the motion correction with other program", "the spike inference already ran"
                            r"\b(?:i|we) (?:have |had )?already (?:make|made|do|did|done|ran|run|performed?|applied|apply|finished)\b[^.;:?!]*|"
                            r"\b[\w/-]+(?: [\w/-]+){0,2} (?:already ran|ran already|(?:is|was|are|were|has been|have been) (?:computed|calculated|"
                            r"estimated|done|run) already)\b|"
                            r"\b(?:passed|survived|made it through) (?:the )?(?:classification|curation|classifier|segmentation)\b|"
                            r"\bafter (?:the )?(?:cells|rois|neurons|movie|traces) (?:were|was|got|had been|have been) (?:classified|curated|segmented|"
                            r"registered|detected)\b|"
                            r"\b(?:segmentation|registration|detection|classification|deconvolution|suite2p|cellpose|caiman|"
                            r"the (?:classifier|segmenter|detector|pipeline)) (?:gave|produced|returned|found|yielded) (?:us|me|\d+|many|"
                            r"lots|too many|only|few)\b|"
                            r"\balready (?:been )?(?:motion[- ])?(?:corrected|registered|denoised|segmented)\b(?: in an? (?:earlier|previous) (?:run|step))?|"
                            r"\b(?:registere?d|motion[- ]corrected|neuropil[- ](?:corrected|subtracted)|denoised|segmented|detected|deconvolved|classified|"
                            r"extracted)\s+(?=(?:\w+\s+)?(?:movie|recording|stack|video|frames?|images?|data|cells|rois?|"
                            r"traces?|events|masks|neurons)\b)", re.IGNORECASE)


_OCCASION = re.compile(r"\b(?:as a backdrop )?for (?:the |my |our )?(?:figs|figures|slides)\b|"
                       r"\b(?:it|this|that)['’]?s (?:the|an?|our|my) (?:[\w-]+ ){0,2}(?:panel|figure)\b(?: for (?:the|a|our|my) [\w-]+)?|"
                       r"\bfor (?:the|my|our|a|an) (?:[\w-]+ ){0,3}(?:paper|lab meeting|meeting|talk|poster|thesis|report|grant|"
                       r"manuscript|presentation|slides?|supplement\w*|figure(?: panels?)?|panel|dashboard|review\w*|overlay|network analysis|"
                       r"(?:teaching|training|lab|tutorial) session|lecture|class|course|tutorial|workshop|journal club|"
                       r"(?:methods|results) (?:section|chapter)|summary table|results table|overview table)\b"
                       r"(?: (?:of|in) (?:the|my|our) (?:paper|manuscript|thesis))?(?: on [\w -]+?(?=[,.;:?!]|$))?|"
                       r"\bfor (?:the|my|our|a|an) (?:[\w-]+ ){0,2}(?:part|chapter|section|appendix) (?:of|in) (?:the|my|our) "
                       r"(?:paper|manuscript|thesis|report)\b|"
                       r"\bfor (?:figure|fig\.?|table) ?\d+\w*(?: (?:of|in) the (?:paper|manuscript|thesis))?|"
                       r"\bfor (?:my|our) (?:[\w-]+ )?(?:table|spreadsheet|notes|records|lab ?book|notebook|slides?|figs?|figure|poster|talk|panel)\b|"
                       r"\bfor the (?:[\w-]+ )?(?:table|spreadsheet)(?: (?:in|of|for) (?:the|my|our) (?:[\w-]+ ){0,2}(?:paper|thesis|report|manuscript))?"
                       r"\s*(?=[:,.]|$|\s(?:i|we)\b)|"
                       r"\b(?:goes|go|going|will go) (?:straight |directly )?(?:in|into|to) (?:the|my|our|a) (?:[\w-]+ ){0,2}"
                       r"(?:table|spreadsheet|paper|report|thesis|figure|slides?|talk|poster|supplement\w*)\b(?: for the (?:paper|report|thesis))?", re.IGNORECASE)
"""What a result is for ("for the paper", "for my thesis figure", "for a teaching session on functional boxplots") is
not an object worked on or a figure asked."""
_ACQUISITION = re.compile(r"\b(?:frame|sampling|acquisition|imaging|scan) rate\b|"
                          r"\b(?:at |@ ?)?\d+(?:\.\d+)? ?(?:frames? (?:per|a) second|frames?/s)\b|"
                          r"\b(?:we|i) (?:imaged|recorded|acquired|sampled) (?:a |an |the |our |one )?(?:[\w-]+ ){0,3}?(?:field of view|fov|area|"
                          r"region|plane)\b|"
                          r"\b(?:recording|movie|session|video|data|stack)s? (?:is|was|are|were) (?:sampled|recorded|acquired|imaged|taken)\b[^.;:?!]*|"
                          r"\b(?:one|a|each) row (?:per|for each|for every) (?:cell|roi|neuron|curve|event|trace)s?\b|"
                          r"\b(?:recording|movie|session|video|data|stack)s? (?:(?:is|was|are|were) (?:\w+ )?)?(?:at|@)?\s*"
                          r"\d+(?:\.\d+)?\s*(?:hz|fps)\b|\b(?:imaged|recorded|acquired|sampled)\b|\b(?:we|i) (?:image|record|acquire|sample) at\b|"
                          r"\b(?:in|from|for) (?:this|the|our|my) (?:[\w/-]+ ){0,3}(?:recording|session|video|movie|stack|data ?set)\b|"
                          # "the transients in every cell of this recording": the recording given, where the cells are
                          r"(?:(?<=cell )|(?<=cells )|(?<=neuron )|(?<=neurons )|(?<=roi )|(?<=rois ))of (?:this|our|my) "
                          r"(?:[\w/-]+ ){0,3}(?:recording|session|video|movie|stack|data ?set)\b|"
                          r"\b\d+(?:\.\d+)?[- ](?:minute|min|second|sec|s|hour|h)(?:[- ]long)?[- ](?:\w+ )?(?:recording|movie|session|"
                          r"video|sweep|acquisition)\b", re.IGNORECASE)
"""How the data was acquired ("the recording is 15 Hz", "a 10-minute session") describes the input: not an object."""
_BEFORE = re.compile(r"\b(?:before|prior to|ahead of)(?!\s+(?:any\s+|the\s+)?(?:[\w/-]+\s+)?(?:filtering|curation|classification|rejection)\b)\s+\w+ing\b(?:\s+(?!i\b|we\b)[\w/-]+){1,3}(?=\s+(?:i|we)\b|\s*[,;:.!?]|\s*$)|"
                     r"\b(?:before|prior to|ahead of)(?!\s+(?:any\s+|the\s+)?(?:[\w/-]+\s+)?(?:filtering|curation|classification|rejection)\b)"
                     r"\s+(?:the\s+)?(?:\w+\s+)?(?:\w+ing|segmentation|registration|detection|"
                     r"deconvolution|analysis|extraction|image|map|step)\b", re.IGNORECASE)
"""What a step comes before ("low-pass the movie before segmenting") is the next step, not this one."""


_REFERENCE = re.compile(r"\b(?:above|below|over|under|than|from) (?:the |its |their )?(?:median|mean|average|baseline|f0|"
                        r"rest(?:ing)?(?: level)?)\b|"
                        # what a window or size is measured against ("a window longer than any transient")
                        r"\b(?:longer|shorter|wider|narrower|bigger|larger|smaller) than (?:any|the|a|an|each|every|one|a typical) "
                        r"(?:single |typical |calcium )?(?:transient|event|spike|cell|roi|soma|neuron)s?\b",
                        re.IGNORECASE)
"""A level a threshold is set against ("3 SDs above the median") is not a statistic the clause asks for."""


_DESCRIBED = re.compile(r"\b(?:that|which|who)\s+(?:\w+\s+){0,2}(?:fire[sd]?|flash(?:ed|es)?|spike[sd]?)\b[^,.;?!]*|"
                        # how a half-decay or a 10-90 rise is measured ("from the peak until the trace falls below half
                        # the event's amplitude", "rise from ten to ninety percent of amplitude"): the kinetics themselves
                        r"\b(?:until|till|to when|before)\s+(?:the (?:trace|signal|fluorescence|df/f|δf/f|transient)\s+|it\s+)?"
                        r"(?:falls?|drops?|decays?|returns?|gets?)\s+(?:back\s+)?(?:below|under|to|beneath)\s+half\b[^,.;?!]*|"
                        r"\b(?:from\s+)?(?:10|ten)\s*(?:%|percent|per cent)?\s*(?:to|-|–)\s*(?:90|ninety)\s*(?:%|percent|per cent)?\s+"
                        r"of\s+(?:the\s+|its\s+)?(?:event['’]s\s+)?(?:peak\s+)?(?:amplitude|peak|maximum|height)\b|"
                        # what a method must stay clear of ("a baseline that is not dragged up by the transients")
                        r"\b(?:without (?:being )?|not (?:be |being )?)(?:dragged|pulled|biased|affected|thrown off|fooled|distorted)"
                        r"(?: up| down| upwards?| downwards?)? by (?:the )?(?:[\w-]+ )?(?:transients|spikes|events|peaks)\b|"
                        # how the cells differ ("expression levels differ a lot between cells")
                        r"\b(?:differs?|vary|varies) (?:a lot |widely |strongly |greatly |quite a bit |so much )?(?:between|across|among) "
                        r"(?:the )?(?:cells|neurons|rois|curves|animals|sessions)\b|"
                        r"\b(?:ignor(?:e|es|ing)|(?:robust|insensitive|immune) to|unaffected by|stays? (?:under|underneath|below)) (?:the )?(?:[\w-]+ )?"
                        r"(?:transients|spikes|events|peaks)\b",
                        re.IGNORECASE)
"""How the cells behave, said of them ("the quiet ones that hardly fire"), or what a method must not be moved by
("a baseline that ignores the calcium spikes"): a description, not events asked for."""


_NAME_IN_QUOTES = re.compile(r"(?<!\w)(?:'[^'\s][^']{0,40}?'|\"[^\"\s][^\"]{0,40}?\"|“[^”]{1,40}”)(?!\w)")


_FILE_NAME = re.compile(r"(?<![\w/.])(?:[\w.-]*/)*[\w-]*[a-z0-9_-][\w-]*\.(tiff?|csv|tsv|npy|npz|json|png|h5|hdf5|nwb|mat|xlsx?|txt)\b",
                        re.IGNORECASE)


_NAMED_COLUMN = re.compile(r"\b(an?|the|its|that|this|our|my) (?!(?:numeric|numerical|first|last|second|third|other|next|same|whole|"
                           r"entire|new|single|one|each|every|time|x|y|id|index|label|extra|empty)\b)[\w-]+ column\b", re.IGNORECASE)


def without_names(text: str) -> str:
    """The text with names in quotes blanked, file names reduced to their kind and a column's name left out: "the total
    of the 'events' column" and "an snr column" ask about a column, not events or a signal-to-noise ratio;
    "mouse3_day2.tif" names a tiff, not a method."""
    text = _NAMED_COLUMN.sub(lambda m: f"{m.group(1)} column", _NAME_IN_QUOTES.sub(" ", text))
    return _FILE_NAME.sub(lambda m: f"file.{m.group(1)}", text)


def without_purpose(text: str) -> str:
    """The clause without what it is for ("... so I can see every cell", "... to try the boxplot on"), the step it
    comes before, what its input already went through ("the registered movie") and the level a threshold is set
    against ("above the median"): none is something it asks to be done."""
    text = _DESCRIBED.sub(" ", _PURPOSE.sub(" ", without_asides(_LEADING_PURPOSE.sub(" ", text))))
    text = without_makers(text)
    return _OCCASION.sub(" ", _REFERENCE.sub(" ", _DONE_TO_INPUT.sub("", _BEFORE.sub(" ", text))))


_AS_FILE = re.compile(r"\bas (?:an? )?(?:image|png|picture|jpe?g|svg|pdf|tiff?)(?: file)?\b|"
                      r"\b(?:an?|one) (?:[\w-]+ )?(?:table|matrix) of (?=(?:[\w-]+ ){0,3}(?:correlations?|coefficients?|values|rates?|counts?|"
                      r"amplitudes?|areas?|measures?))", re.IGNORECASE)
"""The format an output is saved in ("save the boxplot as an image") is not an object worked on."""


def worked_on(text: str) -> frozenset[str]:
    """The objects a clause works on: those it names outside a purpose ("to find cells"), the step it comes before,
    a time span, an occasion, how the data was acquired, what the input went through ("the neuropil-corrected
    traces" are traces) or the format an output is saved in ("denoise before ROI detection" works on the movie)."""
    text = digits(text)  # "at ten frames per second" is a rate
    text = _LEADING_PURPOSE.sub(" ", _DONE_TO_INPUT.sub("", _COLUMN_NAME.sub(" column ", text)))
    text = _DESCRIBED.sub(" ", _BEFORE.sub(" ", _PURPOSE.sub(" ", without_asides(text))))
    return objects(_ACQUISITION.sub(" ", _OCCASION.sub(" ", _AS_FILE.sub(" ", _SPAN.sub(" ", text)))))


_EACH_FRAME = re.compile(r"\bframe[- ]by[- ]frame\b|\bframe[- ]to[- ]frame\b|\bfrom one (?:time ?point|frame) to the next\b|\b(?:at|for) (?:each|every) time ?points?\b|(?<!along )(?<!across )(?<!over )(?<!through )(?<!throughout )(?<!in )\b(?:per|each|every|at every|for every|at each) (?:[\w-]+ (?:and|&) )?frames?\b",
                         re.IGNORECASE)
_FRAMES = re.compile(r"(?<!\d )\bframes?\b", re.IGNORECASE)


_COLUMN_NAME = re.compile(r"\b[\w-]+ columns?\b", re.IGNORECASE)


def objects(text: str) -> frozenset[str]:
    """The domain objects a text names (cells, events, images, curves, tables...). Frames beside events or traces,
    or "frame by frame", are when something happens ("which frames have transients"), not images."""
    found = frozenset(k for k, r in _OBJECT_RES.items() if r.search(text))
    if "image" in found and found & {"event", "trace"} and not _OBJECT_RES["image"].search(_FRAMES.sub(" ", text)):
        found -= {"image"}
    if "image" in found and not _OBJECT_RES["image"].search(_EACH_FRAME.sub(" ", text)):
        found -= {"image"}
    return found


def foreign_files(text: str) -> frozenset[str]:
    """{"foreign"} when a text names a file format no reader here opens, wherever it says so: "the runs are in
    ensemble.mat. Load them" loads that file."""
    return frozenset({"foreign"}) if _FOREIGN_FILE_RE.search(text) else frozenset()


def foreign_words(text: str) -> list[str]:
    """The words of a text that name things no action here works on (audio, genomes, stocks...)."""
    return list(dict.fromkeys(m.group(0).lower() for m in _OBJECT_RES["foreign"].finditer(text)))


def variable_objects(names: Iterable[str]) -> frozenset[str]:
    """The domain objects run variables hold (images_registered -> image, roi_traces -> cell)."""
    return frozenset(obj for n in names for obj, r in _VARIABLE_OBJECTS if r.search(n.lower()))


# A method's own parameter given a value ("sigma = 2.5 px", "a 5-frame window", "min distance 10 px between seeds"):
# an action that takes no such parameter cannot honour it. The analysis parameters every capability reads
# (planexec.params: cell diameter, frame rate, decay, thresholds) are not among these.
_PARAMETER_NOUN = (r"sigma|σ|min(?:imum)?[- ](?:seed |peak |centre |center )?distance|min(?:imum)?[- ](?:region|area)(?: size)?|radi(?:us|i)|annul(?:us|i)|(?:sliding |moving |running )?(?<!cranial )(?<!imaging )(?<!optical )(?<!glass )windows?|"
                   r"kernel(?: size| width| length)?|footprint|bandwidth|(?:model |ar |filter )?order|lags?|cut-?off|"
                   r"bins?|components|clusters|iterations|(?:block|patch|tile)(?: size)?|overlap|span|alpha|half-?width|"
                   r"neighbou?rhood|lambda|λ|(?:sparsity |l1 |l0 )?penalty|fences?")
_NUMBER = r"(\d+(?:\.\d+)?)"
_SETS_PARAMETER = re.compile(
    rf"\b({_PARAMETER_NOUN})\b\s*(?:\([^)]{{0,20}}\)\s*)?"
    rf"(?:(?:between|among|of) (?:the |two )?(?:\w+ ){{0,2}}?(?:cells?|centres?|centers?|seeds?|peaks?|somata|rois?)\s+)?"  # "between cell centres"
    rf"(?:=|:|≈|~|of|is|to|at|from|up to|between|around|about|spanning|exactly|\s)*\s*{_NUMBER}"
    rf"|{_NUMBER}(?:x\d+)*\s*(?:px|pixels?|frames?|s|ms|sec\w*|µm|um|min\w*|hz)?[- ](?:\w+[- ])?({_PARAMETER_NOUN})\b",
    re.IGNORECASE)


_PERCENTILE = re.compile(r"\b(\d+(?:\.\d+)?)(?:st|nd|rd|th)[- ](?:percentile|pctile|pctl|ptile|perc|centile|%ile)\b", re.IGNORECASE)
"""A percentile written as an ordinal ("F0 = the 20th percentile"): the percentile a method is set to."""
_GAUSSIAN = re.compile(r"\bgaussian (?:kernel |filter |blur )?(?:(?:of|with|=|at) (?:a )?(?:sigma |σ |width )?(?:of |= ?)?|"
                       r"(?:that is |which is )?(?=\d+(?:\.\d+)? ?(?:frames?|px|pixels?) wide))(\d+(?:\.\d+)?)",
                       re.IGNORECASE)
"""A Gaussian's width given as its value ("smooth with a Gaussian of 3 frames"): its sigma."""
_GAP_UNIT = r"(?:frames?|s|secs?|seconds?)"
_APART = re.compile(rf"\b(?:at least |min(?:imum)? )?(\d+(?:\.\d+)?) {_GAP_UNIT} apart\b|\bcloser than (\d+(?:\.\d+)?) {_GAP_UNIT}\b|"
                    rf"\b(\d+(?:\.\d+)?) {_GAP_UNIT}\)?(?:\s*\([^()]{{0,40}}\))? (?:between|separating) "
                    r"(?:(?:two|consecutive|successive|any two|neighbouring|neighboring) )?"
                    r"(?:\w+ )?(?:events|peaks|transients|spikes)\b", re.IGNORECASE)


def set_parameters(text: str) -> list[tuple[str, float]]:
    """The method parameters a clause gives a value, with the value: [("sigma", 2.5)] for "sigma = 2.5 px",
    [("percentile", 20.0)] for "the 20th percentile of each trace"."""
    out = {}
    text = digits(text)  # "a sixty-second window", "at least ten frames between events"
    for m in _SETS_PARAMETER.finditer(text):
        noun = (m.group(1) or m.group(4)).lower().replace("-", " ")
        if m.group(3) and noun in ("sigma", "σ") and re.fullmatch(r"[\d.]+\s*(?:σ|sigma)", m.group(0), re.IGNORECASE):
            noun = "k"  # "peaks above 3.5 σ" is a multiple of the noise, not a filter's sigma
        out.setdefault(noun, float(m.group(2) or m.group(3)))
    for m in _PERCENTILE.finditer(text):
        out.setdefault("percentile", float(m.group(1)))
    for m in _GAUSSIAN.finditer(text):
        out.setdefault("sigma", float(m.group(1)))
    for m in _APART.finditer(text):  # "at least 20 frames apart": the smallest gap between events
        out.setdefault("min gap", float(m.group(1) or m.group(2) or m.group(3)))
    return list(out.items())


def each_frame(text: str) -> bool:
    """Whether a clause asks something for every frame ("dF/F for every frame", "frame by frame")."""
    return bool(_EACH_FRAME.search(text))


# "I'd rather have the median than the plain average" ("leave the rejected ones out" asks a subset: not a denial)
_NEGATED_AROUND = re.compile(r"\brather (?:have|get|use|see|take) [^.;:?!]{1,80}? than((?:\s+[\w/'-]+){1,3})", re.IGNORECASE)


_NOT_NEEDED = re.compile(r"((?:[\w/-]+\s+){1,3})(?:is|are|was|were)(?:n['’]t| not) (?:needed|necessary|required|wanted)\b",
                         re.IGNORECASE)
"""A step said to be unneeded ("Neuropil subtraction is not needed"): denied, like "without neuropil subtraction"."""


def split_negated(text: str) -> tuple[str, str]:
    """(the text with denied phrases blanked, the denied phrases): "peaks, no deconvolution" -> ("peaks, ", "deconvolution")."""
    denied = [m.group(1) for m in _NOT_NEEDED.finditer(text)]
    text = _NOT_NEEDED.sub(" ", text)
    denied += [m.group(1) for m in _NEGATED.finditer(text)]
    text = _NEGATED.sub(" ", text)
    for m in reversed(list(_NEGATED_AROUND.finditer(text))):  # only the denied words go: the ask before "than" stays
        denied.append(m.group(1))
        text = text[:m.start(1)] + " " + text[m.end(1):]
    return text, " ".join(denied)


@dataclass(frozen=True)
class Named:
    """What a text names and what it denies: specifics (`Terms`) and objects."""

    terms: Terms
    objects: frozenset[str]
    denied_terms: Terms
    denied_objects: frozenset[str]

    @classmethod
    def of(cls, text: str, variables: Iterable[str] = (), about: str | None = None) -> Named:
        """`about`: the text that says what the thing is and does (default `text`): its objects and its task
        ("count the cells the classification accepts" counts, it does not classify); `variables` add objects."""
        said, denied = split_negated(text)
        on = split_negated(about)[0] if about is not None else said
        terms = extract_terms(said)
        if about is not None:
            doing = extract_terms(on).groups
            terms = Terms({**{g: v for g, v in terms.groups.items() if g not in _DOING},
                           **{g: v for g, v in doing.items() if g in _DOING}}, terms.numbers)
        return cls(terms, objects(on) | variable_objects(variables), extract_terms(denied), objects(denied) - objects(said))


def denial_conflicts(clause: Named, action: Named, choosable: frozenset[str] = frozenset()) -> list[str]:
    """What one side denies and the other asks or does ("asks no deconvolution, the action does it"); a term the
    action's arguments choose (`choosable`: "BD rather than MBD") is not done when the clause denies it."""
    out = []
    for group, denied in clause.denied_terms.groups.items():
        done = denied & action.terms.groups.get(group, frozenset())
        if clause.terms.groups.get(group, frozenset()) & choosable:  # asks another choice of the same argument
            done -= choosable
        if group == "statistic" and (clause.terms.groups.get(group, frozenset()) - denied) & action.terms.groups.get(group, frozenset()):
            done = frozenset()  # "the median, not the mean" from a summary that reports both: the median is there
        if done:
            out.append(f"{group}: asks no {'/'.join(sorted(done))}, the action does it")
    for group, asked in clause.terms.groups.items():
        refused = (asked & action.denied_terms.groups.get(group, frozenset())) - action.terms.groups.get(group, frozenset())
        if refused:
            out.append(f"{group}: asks {'/'.join(sorted(refused))}, the action does it without")
    done_objects = clause.denied_objects & action.objects - clause.objects
    if done_objects:
        out.append(f"asks no {', '.join(sorted(done_objects))}, the action works on it")
    return out


__all__ = ["Named", "denial_conflicts", "each_frame", "foreign_files", "without_names", "foreign_words", "objects", "set_parameters", "split_negated", "variable_objects",
           "without_purpose", "worked_on"]
