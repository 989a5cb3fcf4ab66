package commands

// FitLimits exposes fitLimits to the external tests.
var FitLimits = fitLimits
