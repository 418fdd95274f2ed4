package viz

// SeriesColor is the colour of the i-th curve of a chart, for tests.
var SeriesColor = seriesColor
