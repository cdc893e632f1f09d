import Foundation
import FaceCropCore
import FaceCropKit

FaceCropCommand.tuneMemory()  // first, before any large allocation
let stop = StopRequest()
let temporaries = TemporaryFiles()
let signals = StopSignals(stop: stop, temporaries: temporaries)

let status = await FaceCropCommand.run(
    arguments: Array(CommandLine.arguments.dropFirst()), stop: stop, temporaries: temporaries)
withExtendedLifetime(signals) {}
exit(status)
