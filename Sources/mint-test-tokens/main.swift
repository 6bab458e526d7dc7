// Mints signed App Store-shaped data with the test PKI, for `make bench` (and fuzz seeds).
//
//   mint-test-tokens COUNT OUT_DIR [CA_DIR]
//   mint-test-tokens receipt ENTRIES SIZE OUT_DIR
//   mint-test-tokens timeline NOTIFICATIONS SUBSCRIPTIONS OUT_DIR
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
    let text =
        "usage: mint-test-tokens COUNT OUT_DIR [CA_DIR]\n       mint-test-tokens timeline N SUBSCRIPTIONS OUT_DIR\n"
        + "       mint-test-tokens receipt ENTRIES SIZE OUT_DIR\n"
    FileHandle.standardError.write(Data(text.utf8))
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

if arguments.count == 5, arguments[1] == "timeline" {
    // A webhook log for `jwsinspect timeline`'s memory figure: NOTIFICATIONS DID_RENEW bodies,
    // round robin over SUBSCRIPTIONS subscriptions, each nesting its month's transaction, all
    // signed in the last year by a leaf valid then (OUT_DIR/root.pem, OUT_DIR/log.jsonl).
    guard let total = Int(arguments[2]), total > 0, let subscriptions = Int(arguments[3]), subscriptions > 0 else {
        usage()
    }
    let folder = URL(fileURLWithPath: arguments[4])
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let chain = AppleShapedChain(
        leafNotBefore: now.addingTimeInterval(-2 * year), leafNotAfter: now.addingTimeInterval(year))
    try Data(chain.root.pem.utf8).write(to: folder.appendingPathComponent("root.pem"))
    let start = Int64((now.timeIntervalSince1970 - year) * 1000)
    let handle = try FileHandle(
        forWritingTo: {
            let url = folder.appendingPathComponent("log.jsonl")
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            return url
        }())
    var buffer = ""
    for index in 0..<total {
        let subscription = index % subscriptions
        let period = Int64(index / subscriptions)
        let original = String(3_000_000_000_000_000 + subscription)
        let purchase = start + period * 3_600_000
        let transaction = """
            {"transactionId":"\(4_000_000_000_000_000 + index)","originalTransactionId":"\(original)",\
            "bundleId":"com.example.app","productId":"pro.monthly","purchaseDate":\(purchase),\
            "originalPurchaseDate":\(start),"expiresDate":\(purchase + 3_600_000),"quantity":1,\
            "type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED","signedDate":\(purchase),\
            "environment":"Sandbox"}
            """
        let notification = """
            {"notificationType":"DID_RENEW","notificationUUID":"\(UUID().uuidString.lowercased())","data":{\
            "bundleId":"com.example.app","environment":"Sandbox","signedTransactionInfo":\
            "\(chain.sign(payloadJSON: transaction))"},"version":"2.0","signedDate":\(purchase)}
            """
        buffer += "{\"signedPayload\":\"\(chain.sign(payloadJSON: notification))\"}\n"
        if buffer.utf8.count > 1 << 20 {
            handle.write(Data(buffer.utf8))
            buffer = ""
        }
    }
    handle.write(Data(buffer.utf8))
    try handle.close()
    print("minted a log of \(total) notifications of \(subscriptions) subscriptions into \(folder.path)")
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
