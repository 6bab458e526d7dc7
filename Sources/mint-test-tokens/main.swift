// Mints signed App Store-shaped tokens with the test PKI, for `make bench`.
//
//   mint-test-tokens COUNT OUT_DIR
//
// Writes OUT_DIR/root.pem (the test root to pass with --root) and
// OUT_DIR/tokens.jws (COUNT tokens, one per line, all from one chain, every
// payload distinct, a quarter of them renewal info), signed now by a leaf valid now.
import Foundation
import TestPKI

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[1]), count > 0 else {
    FileHandle.standardError.write(Data("usage: mint-test-tokens COUNT OUT_DIR\n".utf8))
    exit(64)
}
let folder = URL(fileURLWithPath: arguments[2])
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
// A leaf valid around the current time, and tokens signed now, like live App Store traffic.
let now = Date()
let year: TimeInterval = 365 * 24 * 3600
let chain = AppleShapedChain(leafNotBefore: now.addingTimeInterval(-year), leafNotAfter: now.addingTimeInterval(year))
let signedDate = Int64(now.timeIntervalSince1970 * 1000)
try Data(chain.root.pem.utf8).write(to: folder.appendingPathComponent("root.pem"))

var lines: [String] = []
lines.reserveCapacity(count)
for index in 0..<count {
    let payload =
        index % 4 == 3
        ? TestPayloads.renewalInfo(signedDate: signedDate)
        : TestPayloads.transaction(signedDate: signedDate, transactionId: String(2_000_000_000_000_000 + index))
    lines.append(chain.sign(payloadJSON: payload))
}
try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: folder.appendingPathComponent("tokens.jws"))
print("minted \(count) tokens into \(folder.path)")
