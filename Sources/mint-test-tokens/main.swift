// Mints signed App Store-shaped data with the test PKI, for `make bench` (and fuzz seeds).
//
//   mint-test-tokens COUNT OUT_DIR [CA_DIR]
//   mint-test-tokens receipt ENTRIES SIZE OUT_DIR
//
// The first writes OUT_DIR/root.pem (the test root to pass with --root) and
// OUT_DIR/tokens.jws (COUNT tokens, one per line, all from one chain, every
// payload distinct, a quarter of them renewal info), signed now by a leaf valid now; with
// CA_DIR, a `jwsinspect mint ca` folder, by its leaf, with its certificates as x5c (make
// bench's revocation figure: a folder minted with --ocsp-url).
//
// The second writes OUT_DIR/receipt-root.pem (the test receipt root, for --root) and
// OUT_DIR/receipt.der: a legacy App Store receipt (`MintedReceipt`) with ENTRIES in-app
// entries, padded to about SIZE bytes (0: no padding), created now by a leaf valid now.
import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI

func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            "usage: mint-test-tokens COUNT OUT_DIR [CA_DIR]\n       mint-test-tokens receipt ENTRIES SIZE OUT_DIR\n"
                .utf8))
    exit(64)
}

let arguments = CommandLine.arguments
// A leaf valid around the current time, and data signed now, like live App Store traffic.
let now = Date()
let year: TimeInterval = 365 * 24 * 3600

if arguments.count == 5, arguments[1] == "receipt" {
    guard let entries = Int(arguments[2]), entries >= 0, let size = Int(arguments[3]), size >= 0 else { usage() }
    let folder = URL(fileURLWithPath: arguments[4])
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let chain = TestReceiptChain(
        leafNotBefore: now.addingTimeInterval(-year), leafNotAfter: now.addingTimeInterval(year))
    let receipt = MintedReceipt.sign(entries: entries, size: size, createdAt: now, chain: chain)
    try Data(chain.root.pem.utf8).write(to: folder.appendingPathComponent("receipt-root.pem"))
    try Data(receipt).write(to: folder.appendingPathComponent("receipt.der"))
    print("minted a receipt of \(entries) in-app entries, \(receipt.count) bytes, into \(folder.path)")
    exit(0)
}

guard arguments.count == 3 || arguments.count == 4, let count = Int(arguments[1]), count > 0 else { usage() }
let folder = URL(fileURLWithPath: arguments[2])
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let signedDate = Int64(now.timeIntervalSince1970 * 1000)
let sign: (String) -> String
if arguments.count == 4 {
    let ca = URL(fileURLWithPath: arguments[3])
    func read(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: ca.appendingPathComponent(name))) }
    guard let key = PrivateKey.read(privateKeyPEM: try read("leaf-key.p8"), curve: .p256) else {
        FileHandle.standardError.write(Data("mint-test-tokens: \(ca.path)/leaf-key.p8 is not a P-256 key\n".utf8))
        exit(65)
    }
    let x5c = try ["leaf.der", "intermediate.der", "root.der"].map { Data(try read($0)).base64EncodedString() }
    let header = "{\"alg\":\"ES256\",\"x5c\":[\(x5c.map(TestPKI.jsonString).joined(separator: ","))]}"
    let leafKey = TestKey(key, algorithm: .ec(.p256))
    try Data(try read("root.pem")).write(to: folder.appendingPathComponent("root.pem"))
    sign = { TestPKI.compactJWS(headerJSON: header, payloadJSON: $0, key: leafKey) }
} else {
    let chain = AppleShapedChain(
        leafNotBefore: now.addingTimeInterval(-year), leafNotAfter: now.addingTimeInterval(year))
    try Data(chain.root.pem.utf8).write(to: folder.appendingPathComponent("root.pem"))
    sign = { chain.sign(payloadJSON: $0) }
}

var lines: [String] = []
lines.reserveCapacity(count)
for index in 0..<count {
    let payload =
        index % 4 == 3
        ? TestPayloads.renewalInfo(signedDate: signedDate)
        : TestPayloads.transaction(signedDate: signedDate, transactionId: String(2_000_000_000_000_000 + index))
    lines.append(sign(payload))
}
try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: folder.appendingPathComponent("tokens.jws"))
print("minted \(count) tokens into \(folder.path)")
