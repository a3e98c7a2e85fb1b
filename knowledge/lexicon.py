"""The specifics a request or a capability can name, by contrast group: methods (Otsu, watershed), statistics
(mean, median), figures (heatmap), tasks, scopes and external variables. Two texts that name different terms of one
group ask different things (planexec.knowledge.reuse compares them)."""

from __future__ import annotations

_MONTH = (r"(?:january|february|march|april|june|july|august|september|october|november|december|"
          r"jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)")
"""A month's name or its abbreviation ("may" is left out: it is mostly a verb)."""

# (group, canonical term, pattern). Order matters: a longer phrase is matched and blanked
# out before its parts ("median absolute deviation" before "median", "median filter" too).
LEXICON: list[tuple[str, str, str]] = [
    ("", "", r"min(?:imum)?[ _](?:seed )?distance"),  # a parameter's name, not a statistic
    ("", "", r"\b(?:median|mean|typical|average|central) behaviou?r\b"),  # how the median curve behaves: no behaviour data
    # what a decision is made from ("label each ROI from its skewness, event rate and shape"), not a result asked
    ("", "", r"\b(?:from|by|on|using|based on|judged (?:on|from)|according to) (?:(?:things|features|criteria|measures) like )?"
             r"(?:its |their |the |each roi['’]s )?(?:trace |traces['’] )?skew(?:ness)?\b"),
    # what the data is ("the whisker stimulation dataset", "the flood-forecast ensemble") or what moved it ("jitter
    # from licking"): the data given, not a variable or a model asked for
    ("", "", r"\b(?:for|from|in|of|on) the (?:\w+ )?(?:whisk\w*|stimul\w*|lick\w*|reward\w*|odou?r|behaviou?r\w*)"
             r"(?: stimulation| task)? (?:data ?set|experiment|project|study|cohort|paradigm)s?\b|"
             r"\b(?:jitter|motion|movement|drift|shifts?|wobble|shak\w*|artefacts?|artifacts?)\b(?: [\w/]+){0,2} (?:from|due to|"
             r"caused by|because of|during) (?:the )?(?:animal['’]s |mouse['’]s )?(?:lick\w*|whisk\w*|running|locomotion|grooming|"
             r"breathing|heart ?beats?|reward\w*)|"
             # how the data is distributed, and why a statistic will not do, say why another is asked ("revenue is
             # skewed by a few very large orders, so the mean is misleading")
             r"\bskewed (?:by|towards?|to the (?:left|right))\b|"
             r"\bthe (?:mean|average)(?: \w+)? (?:is|would be|will be|gets?|looks?) (?:\w+ )?(?:misleading|biased|distorted|pulled up|"
             r"pulled down|inflated|useless|meaningless|dragged (?:up|down)|skewed|dominated|driven (?:up|down))\b|"
             # a wish for an impression says why the numbers are asked ("a first impression of how active the population was")
             r"\b(?:first |rough |quick |general )?(?:impression|idea|sense|feel(?:ing)?|picture|overview) (?:of|for) how "
             r"(?:[\w-]+ ){0,3}?(?:active|responsive|quiet|busy)\b|"
             # how the data was acquired ("imaged at 10 Hz while the animal sat quietly") is no variable asked
             r"\b(?:imaged|recorded|acquired|filmed|scanned)\b[^.;:?!]{0,60}?\bwhile (?:the )?(?:animal|mouse|mice|subject|fly|fish)\b"
             r"[^.;:?!,]*|"
             r"\bforecast(?:ing)?[- ](?:ensembles?|runs?|members?|curves?|scenarios?|outputs?|data|spread|trajector(?:y|ies))\b|"
             r"\b(?:until|till|by|before|after|from|starting) next (?:quarter|year|month|week)\b|"
             # drawing by hand is what the writer does with the result, not a figure asked
             r"\bhand[- ]?draw\w*|\b(?:tried|try|trying) (?:to )?draw\w*|\bdraw\w* (?:on )?(?:that|this|it) instead\b|"
             r"\bdraw\w* (?:the |my |our |some )?(?:rois?|cells?|outlines?|masks?|contours?)\b(?=[^.;:?!]*\b(?:by hand|manually|fiji|"
             r"imagej|napari)\b)|"
             # one number for the one recording given, and what the rows of a file describe
             r"\b(?:one|a single|1) (?:number|value|count|figure) per (?:session|recording|movie|fov|field of view)\b|"
             r"\bper[- ](?:session|animal|mouse|day|trial|recording) (?:\w+ )?(?:metadata|info\w*)\b|"
             # "how active each cell is: how many events and its rate" asks the events, not an active/inactive label
             r"\bhow active (?:each|every|the|these|those|our|my|individual)\b(?: [\w-]+){0,2} (?:is|are|was|were)\b|"
             r"\bhow active (?:is|are|was|were) (?:the |each |every |these |those |our |my )?(?:[\w-]+ ){0,2}?(?:cells?|neurons?|"
             r"rois?|population|units?)\b|"
             # what a projection is compared with ("sparse cells vanish in the average picture"): not a mean asked
             r"\b(?:vanish\w*|disappear\w*|invisible|(?:barely|hardly|don['’]t|do not) show(?:s| up)?|get lost|wash(?:es)? out)\b"
             r"(?: \w+){0,2}? (?:in|when (?:we|you|i|they) average)(?: (?:the|an|a|our) (?:average|mean|averaged)(?: \w+)?)?"),
    # suite2p's enhanced mean image (high-pass filtered and normalised) is another image than the plain mean
    ("projection", "trimmed_mean", r"\btrimmed[- ]mean\b|\bwinsori[sz]\w*"),
    ("projection", "enhanced_mean", r"\benhanced mean (?:image|projection|img)\b|\bmeanimge\b"),
    ("projection", "max_projection", r"max[- ]project\w*"),
    ("projection", "max_projection", r"max(?:imum)?[- ]?(?:intensity )?(?:projection|image|img|frame)"),
    ("projection", "mean_projection", r"(?:mean|average|avg)[- ]?(?:intensity )?(?:projection|image|img|frame)"),
    ("projection", "sum_projection", r"sum(?:med)?[- ]?(?:intensity )?(?:projection|image|img)"),
    ("projection", "median_projection", r"median[- ]?(?:intensity )?(?:projection|image|img)"),
    ("projection", "std_projection", r"(?:std|standard[- ]deviation)[- ]?(?:projection|image)"),
    ("filter", "median_filter", r"median[- ]filter\w*"),
    ("filter", "gaussian_filter", r"gaussian (?:filter\w*|smooth\w*|blur\w*|kernel)"),
    ("filter", "savgol", r"savitzky[- ]golay|savgol"),
    ("filter", "butterworth", r"butterworth"),
    ("filter", "moving_average", r"moving[- ]average|boxcar|running mean|uniform filter"),
    ("band", "bandpass", r"band[- ]?pass"),
    ("band", "lowpass", r"low[- ]?pass"),
    ("band", "highpass", r"high[- ]?pass"),
    ("statistic", "mad", r"median absolute deviation|\bmad\b"),
    # the table tool's standard deviation is the sample one (n - 1): the population one is another statistic
    ("statistic", "population_sd", r"population (?:standard deviations?|sds?|std|variances?)|divid\w* by n\b(?![- ]?1)|"
                                   r"\bddof ?= ?0\b|biased (?:standard deviation|variance|estimat\w*)"),
    ("statistic", "iqr", r"interquartile range|\biqr\b"),
    ("statistic", "sem", r"standard error|\bsem\b"),
    ("depth", "modified_band_depth", r"modified band depth|\bmbd\b"),
    ("depth", "band_depth", r"band depth"),
    ("depth", "half_region_depth", r"half[- ]region depth"),
    ("depth", "other_depth", r"(?:extremal|spatial|half[- ]?space|tukey|integrated|projection|simplicial|"
                             r"mahalanobis) depth|outliergram|(?:modified )?(?:epigraph|hypograph)|magnitude[- ]shape|\bms[- ]?plots?\b|"
                             r"(?:directional |functional )?outlyingness|"
                             # band depth from bands of J > 2 curves: the depths here use pairs (J = 2)
                             r"\bj ?= ?[3-9]\b|\bbands? (?:formed |made |built )?(?:by|of|from) (?:three|3|four|4|more than two) curves\b"),
    # a decay estimated per cell: the deconvolution uses one for all
    ("scope", "per_cell_fit", r"\b(?:separate|own|individual|different) (?:decay (?:constant|time)|tau|time constant)s? (?:for|per) "
                              r"(?:each|every) (?:cell|neuron|roi)\b"),
    # the rise from 10 % to 90 % of the amplitude is the rise time the kinetics measure; other levels are not
    ("feature", "rise_time", r"\b(?:from )?(?:10|ten) ?(?:%|percent|per cent) (?:until|to|up to|and|-|–) ?(?:90|ninety) ?"
                             r"(?:%|percent|per cent) of (?:the |its |their |each )?(?:[\w'’]+ )?amplitude\b"),
    ("feature", "auc", r"area under (?:the |each |every |a |its |their )?(?:[\w-]+ ){0,2}(?:curves?|traces?|transients?|events?|"
                       r"peaks?|spikes?)|\bauc\b|\bintegral of\b"),
    ("feature", "rise_time", r"rise[- ]?times?|time to peak"),
    ("feature", "decay_time", r"decay[- ]?(?:time[- ]constants?|times?|constants?|tau)|decay|(?:peak|maximum) to half[- ]?(?:amplitude|maximum|height)|"
                              r"(?:fall\w*|drop\w*|com\w* (?:back )?down|return\w*) (?:back )?to half(?: (?:of )?(?:its|the|their))?"
                              r"(?: [\w-]+['’]s)?(?: (?:amplitude|maximum|height|peak|value))?"),
    ("feature", "amplitude", r"(?<!half )(?<!half-)(?<!half its )(?<!half the )(?<!half their )amplitudes?"),
    ("feature", "duration", r"durations?|fwhm|half[- ]width|width at half|how long (?:does|do|did) (?:\w+ ){1,3}last|"
                            r"how long (?:it|they|each (?:one|event|transient|peak)) (?:lasted|lasts|last)\b|\btime spent above\b"),
    ("feature", "frequency", r"frequenc\w*|event rates?|firing rates?|events per (?:minute|second)|how often"),
    ("feature", "interval", r"inter[- ]?(?:event|spike|transient)[- ]intervals?|\bisis?\b"),
    ("correlation", "pearson", r"pearson"),
    ("correlation", "spearman", r"spearman|rank correlation"),
    ("correlation", "kendall", r"kendall"),
    ("segmentation", "otsu", r"otsu"),
    ("segmentation", "watershed", r"watershed"),
    # one threshold value given for the whole image: the segmentations here choose theirs (Otsu, a z-score)
    ("segmentation", "fixed_threshold", r"\b(?:fixed|manual|hard|absolute|hand-picked) (?:intensity )?(?:threshold|cut-?off)\b|"
                                        r"\bthreshold (?:it |them |the image )?at (?:a )?(?:fixed )?(?:value )?(?:of )?\d"),
    ("segmentation", "adaptive_threshold", r"(?:adaptive|local) threshold\w*"),
    ("segmentation", "blob_dog", r"\bdifference[- ]of[- ]gaussians?\b|\bdog\b(?= (?:filter|blob|detect|method|approach))"),
    ("segmentation", "blob_log", r"blob\w*|laplacian of gaussian"),
    ("segmentation", "cellpose", r"cellpose"),
    ("segmentation", "activity", r"from (?:their|its) activity|activity[- ]based"),
    ("segmentation", "kmeans", r"k[- ]?means"),
    ("detection", "find_peaks", r"find[_ ]peaks|peak[- ]detection|peak[- ]finding"),
    ("detection", "deconvolution", r"deconvol\w*|oasis|spike inference"),
    ("detection", "template", r"template match\w*"),
    ("kernel", "ar1", r"\bar ?\(?1\)?(?![\w.])|first[- ]order autoregress\w*|\b(?:single|mono)[- ]exponential\w*|\bexponential[\s-]+(?:decay[\s-]+)?(?:model|kernel)"),
    ("kernel", "ar2", r"\bar ?\(?[2-9]\)?(?![\w.])|(?:second|higher|third)[- ]order autoregress\w*|\bdouble[- ]exponential\w*"),
    ("normalization", "zscore", r"z[- ]?scor\w*|standardi[sz]\w*|subtract\w* (?:its |their |the )?(?:own )?mean and divid\w* "
                                      r"(?:it |them )?by (?:its |their |the )?(?:own )?(?:standard deviation|std|sd)\b"),
    ("normalization", "zscore", r"\bzero mean and unit (?:variance|standard deviation|sd|std)\b"),
    # ΔF/F divides by the baseline; "F - F0 without dividing" or "z-scored rather than divided by its baseline" does not
    ("normalization", "divide", r"\(\s*f\s*[-−]\s*f0\s*\)\s*/\s*f0\b|\bdivid\w* (?:it |them |each \w+ )?by\b(?! (?:\d|two|half|the number))"),
    ("normalization", "minmax", r"min[- ]?max|rescal\w* to \[?0"),
    ("normalization", "dff", r"\bdff\b"),
    ("test", "ttest", r"\bt[- ]test|student'?s t\b"),
    ("test", "mannwhitney", r"mann[- ]whitney|wilcoxon rank[- ]sum"),
    ("test", "wilcoxon", r"wilcoxon"),
    ("test", "ks", r"kolmogorov|\bks[- ]test"),
    ("test", "anova", r"anova"),
    ("fit", "linear", r"linear (?:fit|regression|trend)|(?:fit\w*|through) (?:a |the )?straight lines?|straight[- ]line fit"),
    # "a single-exponential decay model" is the deconvolution's AR(1) kernel, not a curve fit
    ("fit", "exponential", r"(?<!single[- ])(?<!mono[- ])(?<!double[- ])\bexponential\b(?![\s-]+(?:decay[\s-]+)?(?:model|kernel))"),
    ("fit", "polynomial", r"polynomial|quadratic|cubic"),
    ("fit", "spline", r"splines?"),
    ("fit", "sigmoid", r"sigmoid\w*|logistic"),
    ("fit", "model_fit", r"\bfit(?:ting|ted)? (?:a|an|the|my|each|every|some|one) (?!(?:[\w-]+ )?(?:baseline|f0|background)\b)"),
    # a forecast extrapolates a model past the data: nothing here does
    ("fit", "forecast", r"(?<!-)\bforecast(?:ing|ed)?\b(?![- ]?(?:reports?|data|ensembles?|runs?|models?|members?|curves?|scenarios?|systems?)\b)|\bextrapolat\w*|\bpredict\w* (?:the )?(?:next|future|upcoming)\b|"
                        r"\bnext (?:quarter|year|month|week)(?:'s)?\b"),
    ("shape", "area", r"\barea\b"),
    ("shape", "perimeter", r"perimeters?"),
    ("shape", "eccentricity", r"eccentricit\w*"),
    ("shape", "centroid", r"centroids?|cent(?:er|re)s? of mass"),
    ("shape", "solidity", r"solidity"),
    ("shape", "orientation", r"orientations?"),
    # "the level only the lowest tenth of its samples fall below" is a percentile
    ("statistic", "percentile", r"\b(?:lowest|bottom|top|highest) (?:tenth|fifth|quarter|twentieth|\d+ ?%|\d+(?:st|nd|rd|th) percentile)"
                                r"(?: of (?:its |their |the )?(?:[\w()-]+ ){0,3}(?:samples|values|points|frames))?(?: (?:fall|lie|are) below)?"),
    # "over 20 min" is a duration, not a comparison
    ("comparison", "more", r"more than|greater than|larger than|bigger than|longer than|"
                           r"(?<!one )above(?! (?:each other|one another|the other|another|other)\b)|at least(?! once\b)|exceed\w*|"
                           r"\bover (?=\d)(?!\d+(?:\.\d+)?\s*(?:min\w*|s|sec\w*|hours?|h|days?|weeks?|frames?|ms)\b)"),
    ("comparison", "less", r"fewer than|less than|smaller than|shorter than|\bunder (?=\d)|below|at most(?=\s*[\d.])"),
    ("plot", "line", r"line plots?|stacked traces"),
    ("plot", "contour_boxplot", r"contour (?:box[- ]?plots?|band depth)"),  # of 2-D fields: the boxplot here draws curves
    ("plot", "boxplot", r"(?<!surface )box[- ]?plots?|fbplots?"),
    ("plot", "spaghetti", r"spaghetti"),
    ("plot", "histogram", r"histograms?"),
    ("plot", "heatmap", r"heat[- ]?maps?|raster"),
    ("plot", "scatter", r"scatter"),
    ("plot", "violin", r"violin"),
    ("plot", "render_3d", r"\bsurface (?:box)?plots?|\b(?:3[- ]?d|three[- ]dimensional) (?:render\w*|views?|plots?|surfaces?|reconstructions?|"
                          r"visuali[sz]\w*|models?|figures?)|\bin 3[- ]?d\b|surface plot|\brender\w*"),
    ("plot", "animation", r"animat\w*|\bgifs?\b|\bmp4\b|\bvideo of\b|\b(?:movie|video) of the (?:[\w-]+ )?(?:traces|cells|rois|neuropil|background)\b"),
    ("plot", "pie", r"\bpie (?:charts?|plots?)"),
    ("plot", "bar", r"\bbar (?:charts?|plots?|graphs?)|\bbar ?graphs?"),
    # a relation between two things: what one action computes per thing is not it
    ("relation", "pairwise", r"\bpairwise\b|\b(?:every|each|all|any) pairs? of\b|\bpairs of\b|"
                             r"\bbetween (?:the |all |two )?(?:cells|neurons|rois|columns|curves|traces|recordings|movies)\b"),
    ("relation", "versus", r"\bbetween (?:each|every|the) \w+ and (?:its|their|the)\b"),
    # a part of the data or a split of it no action takes: "only the first 100 frames", "each trial separately"
    ("scope", "subset", r"\b(?:only|just) (?:from |of |in |on )?(?:the |a |for )?(?:first|last|middle|odd|even|top|bottom|brightest|dimmest)\b|"
                        r"\b(?:first|last|initial|final) (?:\d+|few|two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|hundred) ?(?:\w+ )?(?:frames?|seconds?|points?|steps?|values?|"
                        r"minutes?|cells?|rois?|neurons?|curves?|rows?|samples?|trials?)\b|\bframes? \d+ ?(?:-|–|—|to|through) ?\d+\b|"
                        r"\b(?:cells?|rois?|neurons?) \d+(?:, ?\d+)*,? (?:and|&) \d+ only\b|"
                        r"\b(?:only|just) (?:for |of )?(?:the )?(?:cells?|rois?|neurons?|curves?|traces?) #?\d+\b|"
                        r"\bsubsets?\b|\bpolygons?\b|\bbefore (?:and|vs\.?|versus) after\b|\bpre[- ]?(?:and|vs\.?|versus|/) ?post\b|\b(?:odd|even)[- ]numbered\b|\b(?:first|second|last) half\b|\bonce (?:per|for each) (?:half|trial|condition|epoch|window|period|segment)\b|"
                        r"\b(?:left|right|top|bottom|upper|lower) (?:half|third|quarter|side) of the (?:image|fov|field|frame|movie)\b|"
                        r"\bonly (?:cells?|rois?|neurons?|units?) (?:#|no\.? ?)?\d+|"
                        r"\bonly (?:from |in |during |over |on )?(?:the )?(?:frames|trials|periods|epochs|times)\b (?:of|when|where|with|"
                        r"without|in which|during)\b|"
                        # "leave those flagged frames out", "drop the members that have gaps"
                        r"\b(?:leav\w*|exclud\w*|drop\w*|skip\w*|discard\w*|omit\w*|throw\w* (?:out|away)) (?:\w+ ){0,2}(?:frames?|trials?|curves?|"
                        r"runs?|members?|samples?|rows?)\b|"
                        # a span of the calendar: "the first quarter", "Q1", "January to March", "2025 only"
                        r"\b(?:first|second|third|fourth|1st|2nd|3rd|4th) quarter\b|\bq[1-4]\b|"
                        rf"\b{_MONTH}(?: (?:19|20)\d\d)? ?(?:to|through|till|until|-|–) ?{_MONTH}\b|\bbetween {_MONTH}(?: (?:19|20)\d\d)? and {_MONTH}\b|"
                        rf"\b(?:{_MONTH}|(?:19|20)\d\d) only\b|\bonly (?:for |in |during |from )?{_MONTH}\b"),
    # the whole field of view as one signal or reference ("the global mean trace", "whole-frame background"): every
    # action here works per cell, per pixel or per pixel's neighbourhood
    ("scope", "whole_field", r"\b(?:mean|average) (?:fluorescence|intensity|brightness|signal) of the (?:whole|entire) (?:field|frame|fov|image)|"
                             r"\b(?:(?:whole|entire)[- ](?:frame|field|fov|field of view)(?:['’]s)?|(?:frame|field|fov)[- ]wide|"
                             r"global) (?:mean |average )?(?:background|mean|average|signal|trace|fluorescence|intensity)|"
                             r"\b(?:all )?(?:the )?pixels outside (?:all |of )?(?:the )?(?:cells|rois|somata|masks)\b"),
    # the segmentation's raw candidates, before the classifier curated them: what counts, counts curated cells
    ("scope", "uncurated", r"\bbefore (?:any |the )?(?:curation|classification|quality control)\b|\buncurated\b|"
                           r"\bincluding (?:the )?(?:ones|rois|cells) (?:that |which )?(?:were |are )?(?:classified|labell?ed|marked) "
                           r"as (?:not|non)|"
                           r"\bincluding (?:the )?(?:rejected|junk|non-?cell)|"
                           r"\bincluding (?:the )?(?:ones|rois|cells) (?:that |which )?(?:the classifier |curation |it )?"
                           r"(?:threw out|rejected|discarded|dropped|removed)\b"),
    ("scope", "per_pixel", r"\b(?:per|each|every|for each|for every)(?: single)? pixels?\b|\bpixel[- ]?wise\b|\bpixel[- ]by[- ]pixel\b"),
    ("scope", "rotation", r"\brotat\w*\b(?! (?:students?|projects?|program\w*)\b)"),  # registration here shifts frames; it does not turn them
    # one pixel's time course as the seed of a map, or the trace of one pixel: the maps here compare neighbours
    ("scope", "seed_pixel", r"\bseed[- ]pixel\b|\b(?:the|a|one) (?:single )?pixel (?:at|i clicked|we clicked|you clicked)\b|"
                            r"\bpixel at (?:its|the) cent(?:re|er)\b"),
    # a reference the user gives: registration here builds its own template from the movie
    ("scope", "given_reference", r"\b(?:to|on|onto|against|with) (?:the )?(?:very )?(?:first|last|\d+(?:st|nd|rd|th)) frame\b|"
                                 r"\b(?:using|use|take|taking) (?:the )?(?:very )?(?:first|last|\d+(?:st|nd|rd|th)) frame as (?:the )?(?:template|reference)\b|"
                                 r"\bframe 0\b|\btemplate (?:image )?from (?:day|session|another|a different)|"
                                 r"\b(?:to|against|onto) (?:a|the|our|my) (?:own |fixed |external )?template (?:from|of|i|we)\b|"
                                 r"\breference (?:image|frame|template) (?:from|of) (?:yesterday|another|a different|a previous|the previous|"
                                 r"last|day)\b|\b(?:to|against|onto) yesterday['’]s (?:session|recording|reference|template|image|frame)\b"),
    # when each pixel peaked, as a map: projections here keep values, not times
    ("measure", "peak_time_map", r"\bframe (?:number|index) (?:at which|where|when|of (?:its|the) (?:peak|maximum))|"
                                 r"\bwhen each pixel (?:was|is|reache?s?|peak)|\btime (?:at which|when) (?:each|every) pixel"),
    # times in seconds: kinetics and trace figures here count frames
    ("scope", "x_values", r"\bx[- ]axis (?:in|as) (?:real |physical )?(?:time|seconds|ms|years|days|hours|dates)\b"),
    ("measure", "time_units", r"\bin (?:milli)?seconds?\b|\bin ms\b|\b(?:time|x)[- ]?axis in s\b|\bmillisecond precision\b|"
                              r"\bsub-?frame\b"),
    # sizes in physical units need a pixel size no action reads
    ("measure", "physical_units", r"µm²|um²|µm\^?2|um\^?2|square micro\w*|\bin (?:µm|um|microns?|micrometers?|micrometres?)\b|"
                                  r"mm²|mm\^?2|square mill\w*|\bper (?:mm|millimet\w*|cm)\b|\b(?:cell |neuron |roi )?densit(?:y|ies)\b"),
    # one channel is read: a structural or second channel ("the red tdTomato channel") is another input
    ("scope", "other_channel", r"\b(?:red|structural|anatomical|second|other|static|reference) channel\b|\bchannel ?[2-9]\b"),
    # noise that changes along the curve: the generator adds one level of noise everywhere
    ("scope", "heteroscedastic", r"heteroscedastic\w*|\bnoise (?:that |which )?(?:grows|increases|rises|gets (?:larger|bigger|stronger))"),
    # what the axes say: the figures here label their own axes
    ("scope", "axis_labels", r"\baxis labels?\b|\blabel\w* (?:the )?(?:x|y)[- ]?axis|\b(?:name|units?|label) on the (?:x|y)[- ]?axis\b|"
                             r"\breal (?:time|dates?|years?) (?:axis|on the x)"),
    # several files at once: each reader here opens one
    ("scope", "many_files", r"\b(?:two|three|four|five|several|multiple|\d+) (?:separate |csv |tsv |npy |data )?(?:files|csvs|tables|spreadsheets)\b|"
                            r"\bsplit (?:over|across|into) (?:\w+ )?(?:files|parts)\b"),
    # the library's papers only: no search of the web or a literature database
    ("scope", "online", r"\b(?:search|look)\w* (?:it |them )?(?:up )?online\b|\bpubmed\b|\bgoogle scholar\b|\bthe (?:web|internet)\b|"
                        r"\bonline (?:search|databases?)\b"),
    # events that go down: the detectors here look for rises
    ("scope", "negative_events", r"\bdips?\b|\bdrops? in (?:the )?(?:fluorescence|signal)\b|\bnegative[- ]going\b|"
                                 r"\bdownward (?:dips?|deflections?|events?|transients?)\b"),
    # what kind of outlier is planted, or the grid the curves are sampled on: the generator chooses both itself
    ("scope", "outlier_kind", r"\boutliers? (?:at|in) (?:indices|index|positions?|rows?) \d|\b(?:only|just) (?:[\w-]+ ){0,2}?(?:bump|spike|peak|shape|shifted|magnitude|amplitude|phase|isolated|persistent)"
                              r"[- ]?(?:type |like |kind )?outliers\b|\bno (?:shifted|reshaped|magnitude|shape|phase) (?:ones|outliers)\b|"
                              r"\bphase[- ]shift\w*|\bpure (?:vertical |magnitude )?shifts?\b|\bonly (?:vertical|magnitude) shifts?\b|\bvertical(?:ly)? shift\w*|"
                              r"\b(?:irregular|non-?uniform|uneven)(?:ly)?,? (?:non-?uniform )?(?:time )?(?:grid|sampl\w*|spac\w*)"),
    # following the same cells across sessions or days: every action here works on one recording
    ("scope", "across_sessions", r"\bmatch (?:them|the cells|the rois|the neurons) (?:to|with) (?:the )?(?:rois|cells|neurons) (?:from|of) (?:last|yesterday|another|the previous|previous|an earlier)\b|\bsame (?:id|ids|label|labels|index|number) in both\b|\b(?:track|match|follow)\w* (?:the )?(?:same )?"
                                 r"(?:single )?(?:cells|neurons|rois) across\b|\bin both (?:recordings|sessions|movies)\b"),
    # the x values given in the file: the readers here number the samples
    ("scope", "x_values", r"\b(?:use|treat|take) (?:it|that|this|the first column|that column|this column|column \d) as (?:the )?(?:x|time)[- ]?"
                          r"(?:axis|values|coordinates|grid)\b|\b(?:first|1st|leftmost) column (?:is|holds|contains|gives) (?:the )?(?:time|x)[- ]?"
                          r"(?:axis|values|coordinates|grid|stamps)?\b"),
    # every ROI the segmentation found, before the classification: the count here is of the ROIs labelled cells
    ("scope", "unfiltered", r"\bbefore (?:any |the )?(?:[\w/-]+ )?(?:filtering|curation|classification|rejection)\b|"
                            r"\b(?:unfiltered|uncurated) (?:rois?|candidates?)\b|\bhow many candidates?\b"),
    # a vector format: the figures here are PNG files
    ("scope", "vector_format", r"\b(?:as|in|to) (?:an? )?(?:svg|pdf|eps)\b|\bvector (?:files?|formats?|graphics?|images?)\b"),
    # pixels weighted by how much they belong to the cell (suite2p's lam): the plain trace extractor averages them
    ("scope", "weighted_pixels", r"\bweight(?:ed|ing|s)? (?:each |every |the )?(?:mask )?pixels?\b|\bpixels? weighted\b|"
                                 r"\bweighted by (?:its|their|the) (?:\w+ )?weights?\b|"
                                 r"\bweighted (?:masks?|mean|average|sum|footprints?)\b|\blam[- ]weighted\b"),
    # smoothing along one axis only: the denoiser filters time and space together
    ("scope", "one_axis", r"\bonly (?:along|in|over|across) (?:time|space)\b|\b(?:along|in|over|across) (?:time|space) only\b|\b(?:purely|only) (?:temporal|spatial)(?:ly)?\b|"
                          r"\b(?:temporal|spatial)[- ]only\b"),
    # a reference or seeds the user brings: registration builds its own reference, segmentation its own seeds
    ("scope", "given_reference", r"\breference (?:image|frame|template) (?:in|from|stored in|saved in) \S+\.\w+|"
                                 r"\b(?:to|against|onto) (?:the )?(?:template|reference)(?: image| frame)? (?:in|from) \S+\.\w+|"
                                 r"\b(?:my|our|the|those|these)\s+(?:own\s+|hand[- ]drawn\s+|manual\s+)?(?:rois?|cells?|masks?|outlines?|labels?|points?|"
                                 r"centroids?|coordinates)\b[^.;]{0,40}? as (?:the )?(?:seeds|starting points)\b"),
    # a paper's whole text: the search returns passages
    ("scope", "full_text", r"\bfull[- ]text\b|\bend to end\b|\b(?:entire|whole) (?:paper|article|pdf)\b"),
    # a column the reader should leave out: the readers here take every column as values
    ("scope", "drop_column", r"\b(?:drop|remov|skip|ignor|exclud|discard|leav)\w* (?:out )?(?:the |that |this )?(?:first |last |\w+ )?columns?\b"),
    # two data sets compared: each action here reads one
    ("relation", "two_sets", r"\b(?:two|both|2) (?:ensembles|recordings|movies|datasets|data sets)\b|"
                             r"\bensemble [a-z0-9]\b(?: \w+){0,3}? (?:and|vs\.?|versus|with|against|to) (?:ensemble )?[a-z0-9]\b|"
                             r"\b(?:with|against|to|and) (?:last|yesterday|the previous|the earlier|another|a second|the other)(?: \w+)?(?:['’]s)? "
                             r"(?:ensembles?|recordings?|movies?|sessions?|datasets?)\b"),
    # the curves' derivatives or slopes: the depths here rank the curves as given
    ("scope", "derivative", r"\bderivatives?\b|\bdifferentiat\w*|\bslopes? of (?:the |each |every )?curves?\b"),
    # how the figure is coloured or annotated beyond what the figures here draw
    ("scope", "figure_extras", r"\b(?:colou?red|shaded) by (?:its |their |the )?(?:depth|rank|value|group|condition|cluster|type)\b|"
                               r"\bscale ?bars?\b"),
    # rise levels other than the kinetics' 10-90 %
    ("scope", "rise_levels", r"\b(?:20|25|30) ?%? ?(?:-|–|to|until) ?(?:70|75|80) ?%|\b(?:20|25|30) ?(?:-|–) ?(?:70|75|80)\b(?! ?(?:hz|frames?|px|ms|min\w*|pixels?|µm|s\b|sec\w*|points?|samples?))"),
    # correlation with the four direct neighbours: the correlation image uses all eight
    ("scope", "four_neighbours", r"\b(?:four|4)[- ](?:connected|connectivity|neighbou?r\w*)|\b(?:four|4) (?:direct|nearest|adjacent) neighbou?rs\b|"
                                 r"\bn/s/e/w\b|\bup, down, left,? (?:and )?right\b|\b(?:not|without|excluding|no) (?:the )?diagonals?\b"),
    # how far the frames moved: what registration measures, not a statistic of the movie's pixels
    ("measure", "displacement", r"\bdisplacements?\b|\b(?:largest|biggest|maximum|max|mean|average|total) (?:frame |lateral |x/?y )?(?:shifts?|drift|motion|movement)\b|"
                                r"\bshifts? in (?:pixels|px)\b"),
    # money in another currency, and facts of the animal or the rig: no action here converts or knows them
    ("scope", "currency", r"\bexchange rates?\b|\bcurrenc(?:y|ies)\b|\b(?:in|into|to) (?:euros?|dollars?|usd|eur|gbp|yen|pounds)\b"),
    ("scope", "metadata", r"\b(?:which|what) (?:brain (?:area|region)|mouse (?:strain|line)|strain|genotype|species|microscope|"
                          r"objective)\b"),
    # a brain atlas: nothing here registers to one
    ("scope", "atlas", r"\batlas(?:es)?\b|\bccf\b|\bcommon coordinate framework\b"),
    # a neuropil ring with no gap to the cell: the ring here keeps 2 px away from every cell
    ("scope", "no_gap", r"\btouching the (?:roi|cell|soma)['’]?s? (?:edge|border|boundary|outline)\b|\bgap of (?:0|zero)\b|\bdirectly (?:adjacent|next) to the (?:roi|cell|soma)\b"),
    # a ring of another geometry: the ring here starts 2 px from the cells and has a fixed size
    ("scope", "ring_geometry", r"\b(?:annulus|ring|surround)\b[^.;]{0,60}?\b\d+ ?(?:px|pixels?) (?:wide|outside|from|away|thick|beyond)\b"),
    # cells drawn in two colours by a label: the outline figure draws every cell alike
    ("scope", "class_colours", r"\bin (?:green|red|blue|yellow|magenta|cyan|white)\b[^.;]{0,60}?\bin (?:green|red|blue|yellow|magenta|cyan|white)\b"),
    # data in long format: the readers here take one curve per row or column
    ("scope", "long_format", r"\blong[- ]format\b|\bpivot\w*\b|\breshap\w* (?:it|them|the table|the data)\b"),
    # frames taken out of the movie: every action here keeps all frames
    ("scope", "drop_frames", r"\b(?:delet|drop|remov|discard|cut|throw\w* out|excis)\w* (?:the |any |all |those )?(?:(?:flagged|bad|corrupted|blurry|outlier|"
                             r"unstable|noisy|motion[- ]corrupted) ){0,3}frames\b|\bshorter (?:stack|movie)\b"),
    # a classifier trained anew: the classification here uses its fixed rule
    ("fit", "train", r"\bre-?train\w*\b|\btrain (?:a|the|our|my|your) (?:new )?(?:[\w/-]+ )?(?:classifier|model)\b|"
                     r"\bfit (?:a|the) (?:new )?(?:[\w/-]+ )?classifier\b"),
    # pointwise quantiles of an ensemble: the statistics here rank whole curves by depth
    ("scope", "pointwise_quantiles", r"\bpoint-?wise (?:median|quantiles?|percentiles?|envelope)\b|\bquantile (?:envelope|band)s?\b"),
    ("scope", "axial", r"\baxial\b|\bz[- ]?(?:motion|drift|shifts?|movement)\b|\(z\)"),
    ("scope", "split", r"(?<!\brow )(?<!\brows )(?<!\bline )\b(?:per|each|every|for each|within each|by|across) (?:[\w-]+ )?(?:trials?|quadrants?|layers?|epochs?|"
                       r"blocks?|stimul\w*|planes?|halves|sweeps?|repeats?|z[- ]?planes?)\b|\bseparately\b|\bside[- ]by[- ]side\b|"
                       r"\btrial[- ]averag\w*|\baveraged (?:over|across) (?:the )?trials\b|\b(?:around|after|locked to) (?:the )?(?:stimulus|stim) onsets?\b|"
                       r"\bperi-?stimulus\b|\b(?:in|per|into) (?:[\w-]+[- ])?(?:minute|min|second|sec|time)[- ]?(?:bins|windows)\b|\b(?:z[- ]?stack|depth axis)\b"),
    ("axis", "per_item", r"(?:per|each|every|for each|individual) (?:\w+ )?(?:cell|roi|neuron|curve|trace|sample|"
                         r"label|mask)s?|(?:each|every) labell?ed regions?"),  # "per region" groups a table
    ("axis", "per_time", r"(?:per|each|every) (?:frame|time ?point|time step)s?|pointwise|across (?:all )?(?:the )?(?:cells|curves|rois|neurons|trials)"),
    # "running" only before what a window slides over ("after running the segmentation" is no window);
    # a lookahead, so "rolling median" still names the median
    ("window", "running", r"\b(?:running|sliding|moving|rolling)(?=[- ](?:\w+[- ])?(?:percentile|minimum|min|maximum|"
                          r"median|baseline|window|f0)s?\b)"),
    ("window", "constant", r"\b(?:constant|fixed|flat)\b|\b(?:whole|entire) (?:trace|recording|time series|session|movie)s?\b|"
                           r"\b(?:single|one)(?= (?:\w+ )?(?:f0|baseline)s?\b)"),
    ("direction", "increase", r"\bincreas\w*|\bupward|\brising\b"),
    ("direction", "decrease", r"\bdecreas\w*|\bdownward|\bfalling\b"),
    ("task", "detect", r"\bdetect(?!ed\b)\w* (?:\w+ )?(?:transient|event|peak|spike)s?|\bfind (?:\w+ )?(?:transient|event|peak|spike)s?"),
    ("task", "segment", r"\bsegment(?:s|ing|ation)?\b"),
    # writing a text of one's own from the literature: a search finds passages, it writes no review or section
    ("task", "write_text", r"\b(?:write|draft|compose)\s+(?:[\w-]+\s+){0,3}(?:(?:literature\s+)?reviews?|(?:methods|results|"
                           r"discussion|introduction)\s+sections?|essays?|manuscripts?|abstracts?|grant|summary\s+of\s+"
                           r"(?:the|a|this)\s+(?:[\w-]+\s+){0,4}(?:paper|article|book))\b"),
    # CNMF's "source extraction" finds the cells: a segmentation
    ("task", "segment", r"\b(?:activity[- ]based )?source extraction\b"),
    ("task", "interpolate", r"\binterpolat\w* (?:the |any )?(?:missing|gaps?|nans?|holes|values|curves? onto|onto)\b|"
                            r"\bby interpolat\w*|\bimput\w*|\bfill (?:in )?(?:the )?(?:missing|gaps?|nans?|holes)\b"),
    ("task", "citation_search", r"\b(?:which|what) (?:other )?(?:papers|articles|studies|works) cite\b|\bcited by\b|"
                                r"\bcitation (?:counts?|graph|network|analysis)\b"),
    ("task", "classify", r"\bdecid\w* (?:which|whether) (?:\w+ ){0,3}(?:are|is) (?:real |genuine )?(?:cells|neurons|somata)\b"),
    ("task", "extract", r"\bextract\w*"),
    ("task", "cluster", r"(?<!\bin )\bcluster\w*"),  # "touching in clusters" describes the cells
    ("task", "register", r"\bregist\w*|motion correct\w*"),
    # sorting cells by type is not telling cells from non-cells: a type names what a classifier must know
    ("measure", "cell_type", r"excitatory|inhibitory|cell[- ]types?|"
                             # telling classes apart ("which of them are parvalbumin-positive interneurons"); a class that
                             # only describes the preparation ("CA1 pyramidal cells") is no ask
                             r"\b(?:which|identify|label|classify|split|separate|sort|tell apart|distinguish|what fraction|"
                             r"proportion)\b[^.;?]{0,40}?\b(?:pyramidal|interneurons?|(?:parvalbumin|somatostatin|pv|sst|vip)"
                             r"[- ]?(?:positive|\+))|\be (?:vs\.?|versus) i\b|\be/i\b"),
    # training a classifier anew: the classifier here is fixed, it learns nothing from a user's labels
    ("task", "train", r"\b(?:train|retrain)\w* (?:a |an |the |my |our |new |own )*(?:\w+ )?(?:classifier|model|network)s?\b|"
                       r"\blearn\w* (?:the |a )?(?:decision|rule|classifier|boundary|criteria)\b"),
    ("task", "classify", r"\bclassif\w*|\bcategori[sz]\w*"),
    # a business figure per region, product or month ("the average revenue in each region")
    ("task", "group_by", r"\b(?:revenue|sales|prices?|costs?|units|orders)\b[^.?!]{0,40}?\b(?:in|for) (?:each|every) (?:region|product|"
                         r"group|category|month|year|week|day|site|store|country|customer)s?\b"),
    ("task", "group_by", r"(?<!object )(?<!row )(?<!entry )(?<!record )(?<!line )"
                         r"\b(?:per|by|for each|grouped by|broken down by|across) (?:region|product|group|category|"
                         r"categorie|month|year|week|day|condition|site|animal|mouse|mice|subject|session)s?\b"),
    ("object", "mean_trace", r"(?:mean|average|population)[- ](?:fluorescence )?(?:trace|time course|signal)s?"),
    # sending a result to someone: no action here mails, uploads or posts anything (before "plot": "e-mail the figure to")
    ("action", "send", r"\b(?:e-?mail|mail|send|forward|upload|post|share|slack|text)(?:s|ed|ing)? (?:it|them|this|that|these|those|"
                       r"(?:the|my|our) (?:[\w-]+ ){0,3}?(?:number|count|results?|figures?|tables?|reports?|plots?|boxplots?|"
                       r"images?|maps?|lists?|statistics|stats|summary|values?|files?))\b"
                       r"(?: [\w.-]+){0,4}? to\b|\bto [\w.+-]+@[\w-]+\.\w+|"
                       r"\b(?:to|on|in|into) (?:our|the|my|a|their) (?:[\w'’-]+ ){0,3}?(?:slack|teams|discord|dropbox|google drive|"
                       r"sharepoint|wiki|confluence|website|mailing list)\b"),
    # an uncertainty report or a written summary is a text the report tool writes, not the statistics behind it
    ("action", "report", r"\buncertainty (?:report|summar\w*|write-?up)\b|\b(?:written|plain[- ]english|prose) (?:report|summar\w*)\b"),
    # "the biggest single revenue figure" is a number
    ("action", "plot", r"\bplot\w*\b(?! (?:code|scripts?|functions?|librar\w*|routines?|tools?)\b)|\b(?:a|an|quick|simple|rough) visuals?\b(?! (?:check|inspection|cortex|area|stimul\w*))|(?<!roi )(?<!manual )(?<!hand )\bdraw(?!n (?:by hand|manually|in (?:imagej|fiji)))\w*(?! (?:a |an |some |\d+ )?(?:\w+ ){0,2}samples?\b)(?! (?:a |the )?(?:disc|disk|circle)s? around)|visuali[sz]\w*|(?<!single )(?<!revenue )(?<!sales )(?<!headline )(?<!cost )"
                       r"(?<!price )(?<!summary )(?<!that )(?<!overall )(?!(?<=\bone )figure (?:from|of|for|in|on)\b)\bfigures?\b(?! (?:of|for) (?:revenue|sales|units|cost|price)\b)(?! (?:i['’]m|we['’]re|i am|we are) after\b)(?! (?:caption|legend)s?\b)(?! out\b)|\boverlay\w*|\bcharts?\b|\bpanels?\b|\bdiagrams?\b|"
                       r"\bgraph(?:s|ed|ing)?\b|\bfigs?\b"),
    ("action", "save", r"\bsav(?:e|es|ing)\b(?! (?:it |them |this |that )?(?:as )?(?:an? )?(?:figure|png|image|picture|plot|\s|$))|\bexport(?:s|ing)?\b(?= (?:it|them|this|that|these|those|the|to|as|into|a|an|each|every|all)\b)|\bwrite (?:\w+ )*?(?:to|into) (?:a |the )?(?:\w+ )?(?:file|disk|csv)"),
    # "already loaded" says where the data is; "I'd like to read what the papers say" is the writer reading
    ("action", "load", r"(?<!already )\bload(?!ed\b)\w*(?! of\b)|(?<!like to )(?<!want to )(?<!\bi )(?<!\bwe )(?<!['’]ve )(?<!\bhave )(?<!\bhad )(?<!\bbe )(?<!\bbeen )(?<!easy to )(?<!easier to )(?<!hard to )(?<!harder to )\bread\b(?! (?:out|off)\b)|\bopen\b"),
    ("action", "simulate", r"\bsimulate\b|\bsimulating\b|\bsynthetic\b|"
                           r"(?<!my )(?<!our )(?<!the )(?<!these )(?<!those )(?<!of )(?<!have )(?<!has )(?<!with )(?<!got )\b\d+ simulated\b"),
    ("statistic", "trimmed_mean", r"\btrimmed[- ]means?\b|\bwinsori[sz]\w*"),
    ("statistic", "mean", r"(?<!\bthey )(?<!\bit )(?<!\bdoes )(?<!\bdo )\bmeans?\b|averag\w*|\bavg\b"),  # not "what they mean"
    ("statistic", "median", r"medians?|middle value"),
    ("statistic", "std", r"standard deviations?|\bstd\b|\bsd\b"),
    ("statistic", "variance", r"variances?"),
    ("statistic", "percentile", r"percentiles?|quantiles?|quartiles?"),
    ("statistic", "max", r"(?<!local )\bmax(?:imum|ima)?\b|largest|biggest|highest|strongest"),
    ("statistic", "min", r"(?<![\d.] )(?<!\d)(?<!\d-)\bmin(?:imum|ima)?\b|smallest|lowest|dimmest|darkest|faintest"),
    ("statistic", "sum", r"\bsum\b|\bsummed\b|\bintegrated (?:intensity|fluorescence|brightness)\b|\btotal\b(?! (?:\w+ )?(?:number|count))"),
    ("statistic", "mode", r"\bmode\b"),
    # "how many frames does it take to fall to half" asks a duration, not a count; "which ROIs count as cells" a label
    ("statistic", "count", r"\bcount\w*\b(?! as\b)(?! in (?:frames?|seconds?|ms|milliseconds|samples?|time ?points?)\b)|number of|how many(?! until\b)(?! (?:frames|seconds|ms|milliseconds|minutes) (?:(?:does|do|did|will) (?:[\w-]+ ){0,6}?take|from|between|until)\b)|"
                           r"\btall(?:y|ies)\b"),
    ("feature", "onset", r"\bonset (?:frames?|times?)\b|\bwhere (?:the|its|each) rise (?:starts|begins)\b|\b(?:begins|starts) to rise\b"),
    ("measure", "bleaching_rate", r"\bbleach\w* (?:rates?|constants?|time constants?|speed)\b|"
                                  r"\b(?:percent|%) (?:of )?(?:the )?(?:fluorescence|signal|brightness) lost\b"),
    ("measure", "active", r"\bactive\b(?! together)|\bresponsive\b|\binactive\b|\bsilent\b|"
                          r"\b(?:show|shows|showing|with|have|has) (?:any |some |no )?activity\b|\bactivity[- ](?:features?|measures?|criteria|information)\b"),
    ("measure", "rejected", r"\b(?:rejected|discarded)\b"),
    # "a few big orders skew it" says why another statistic is asked, not the skewness
    ("measure", "skewness", r"skew(?:ness|ed)\b|\bskew\b(?! (?:it|them|this|that|things|the (?:mean|average|results?|numbers?))\b)"),
    ("measure", "kurtosis", r"kurtos\w*"),
    ("measure", "cv", r"coefficient of variation|\bcv\b"),
    ("measure", "snr", r"signal[- ]to[- ]noise|\bsnr\b"),
    ("measure", "entropy", r"entrop\w*"),
    ("measure", "autocorrelation", r"auto[- ]?correlation"),
    # an external variable no action reads: activity against running, a stimulus, behaviour or genotype
    ("measure", "external", r"\brunning speed|\blocomotion|\bstimul(?:us|i|ation)\b|\bgenotypes?\b|\btones?(?: onsets?)?\b|"
                            r"(?<!median )(?<!mean )(?<!typical )(?<!average )(?<!central )(?<!indicator['’]s )(?<!sensor['’]s )(?<!dye['’]s )(?<!probe['’]s )(?<!method['’]s )(?<!algorithm['’]s )(?<!code['’]s )(?<!median['’]s )(?<!curve['’]s )(?<!curves['’] )(?<!ensemble['’]s )(?<!band['’]s )(?<!\s['’]s )\bbehaviou?r\w*(?! (?:sessions?|data|experiments?|recordings?|rig|task)\b)|"
                            r"\bpupil\w*|\blick\w*|\breward\w*|\bwhisk(?!ers?\b)\w*|\bwhiskers? (?:deflect|stim|pad|touch|mov|puff|contact)\w*|\bair[- ]?puffs?\b|\bodou?rs?\b|\bfoot ?shocks?\b|\bwild[- ]type\b|\bknock[- ]?outs?\b|"
                            r"\bwhile (?:the )?(?:animal|mouse|mice|subject|fly|fish)\b|\brunning[- ]wheel\b|\bwheel speed\b"),
    ("measure", "correlation", r"\bcorrelations?\b|\bcorrelat(?:e|es|ed|ing)\b|\bcross[- ]?correlat\w*|\bcorr\b"),
    ("measure", "distance", r"\bdistances?\b|\bhow far\b(?! (?:it|they|each \w+|the \w+) (?:rose|rises|rise|climbs?|climbed|fell|falls|drops?|dropped|went|goes)\b)|\bnearest[- ]neighbou?r"),
]
# Groups naming what a step must do (plot, save, detect...), a quantity it must compute
# (skewness, SNR...), the object it works on (the mean trace) or the kind of figure (heatmap):
# a capability silent on them cannot do it.
STRICT_GROUPS = frozenset({"action", "task", "measure", "object", "plot", "scope", "relation"})

__all__ = ["LEXICON", "STRICT_GROUPS"]
