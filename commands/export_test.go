package commands

// LayOut exposes layOut to the external tests.
var LayOut = layOut
