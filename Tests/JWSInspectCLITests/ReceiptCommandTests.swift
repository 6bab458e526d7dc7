import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

/// What the receipt suites share: a minted chain and its root on disk, files in the scratch
/// folder, runs of the command in this process, and readings of its JSON.
enum ReceiptCLI {
    /// The chain minted receipts are signed by and `--root` trusts (RSA keys are slow: made once).
    static let chain = TestReceiptChain()
    /// `chain.root` as PEM, for `--root`.
    static let rootFile: String = {
        let url = CLI.scratch.appendingPathComponent("receipt-root.pem")
        try? Data(chain.root.pem.utf8).write(to: url)
        return url.path
    }()
    /// The default receipt, signed by `chain`: sandbox, `TestPayloads.bundleId`, no in-app purchase.
    static let receipt = chain.sign(ReceiptBuilder().der())

    /// A real receipt of Tests/Vectors/receipts.
    static func vector(_ name: String) -> URL {
        CLI.packageRoot.appendingPathComponent("Tests/Vectors/receipts/\(name)")
    }

    /// `bytes` written to a new file of the scratch folder; its path.
    static func file(_ bytes: [UInt8], named name: String) throws -> String {
        let url = try CLI.temporaryDirectory().appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// The command run in this process (now is `InProcess.now`, 2025-06-01T00:00:00Z).
    static func run(_ arguments: [String], stdin: String? = "") -> CLI.Result {
        let result = InProcess.run(arguments, stdin: stdin)
        return CLI.Result(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// The one JSON object a `--format jsonl` run printed.
    static func object(_ result: CLI.Result) throws -> [String: Any] {
        let objects = try result.jsonObjects()
        #expect(objects.count == 1, "\(result.stdout)")
        return try #require(objects.first, "\(result.stderr)")
    }

    /// The names of the checks that failed, in order.
    static func failedChecks(_ object: [String: Any]) -> [String] {
        checks(object).filter { $0["passed"] as? Bool == false }.compactMap { $0["name"] as? String }
    }

    /// The check named `name`, if it ran.
    static func check(_ name: String, of object: [String: Any]) -> [String: Any]? {
        checks(object).first { $0["name"] as? String == name }
    }

    static func checks(_ object: [String: Any]) -> [[String: Any]] {
        object["checks"] as? [[String: Any]] ?? []
    }
}

/// The real receipts of Tests/Vectors/receipts through the built executable: App Store ones
/// verify at their creation date and not now; Xcode ones only with their StoreKit certificate.
@Suite(.timeLimit(.minutes(10))) struct ReceiptCommandTests {
    struct Real: Sendable, CustomTestStringConvertible {
        let file: String
        let type: String
        let bundleID: String
        let created: String
        let inApp: Int
        /// Whom `--at now` names as expired: OpenSSL reports the one nearest the root.
        let expired: String
        var testDescription: String { file }
    }

    static let intermediate = "at the intermediate \"Apple Worldwide Developer Relations Certification Authority\""
    static let leaf = "at the leaf \"Mac App Store and iTunes Store Receipt Signing\""

    /// As Tests/Vectors/receipts/README.md lists them.
    static let appStore = [
        Real(
            file: "06-sandbox-griddiary-2014.der", type: "ProductionSandbox", bundleID: "com.sumiapp.GridDiary",
            created: "2014-09-02T03:29:06Z", inApp: 2, expired: intermediate),
        Real(
            file: "16-sandbox-gridnote-2017.der", type: "ProductionSandbox", bundleID: "io.sumi.GridNote",
            created: "2017-06-16T06:01:55Z", inApp: 7, expired: intermediate),
        Real(
            file: "25-sandbox-nutcall-alert-2020-187iap.der", type: "ProductionSandbox", bundleID: "com.nutcall.alert",
            created: "2020-05-06T18:28:49Z", inApp: 187, expired: intermediate),
        Real(
            file: "33-sandbox-purchasingexp-2023-g7.der", type: "ProductionSandbox",
            bundleID: "com.hannesoid.PurchasingExperiments", created: "2023-02-22T14:30:15Z", inApp: 2,
            expired: intermediate),
        Real(
            file: "36-prod-getpure-2024-g5.der", type: "Production", bundleID: "org.getpure.pure-iphone",
            created: "2024-02-23T17:27:16Z", inApp: 4, expired: leaf),
        Real(
            file: "38-sandbox-weeka-2025-g5.der", type: "ProductionSandbox", bundleID: "dev.bonzer.weeka.app",
            created: "2025-12-26T18:39:47Z", inApp: 2, expired: leaf),
    ]

    @Test(arguments: appStore)
    func appStoreReceiptIsValidAtItsCreationDateOnly(_ real: Real) throws {
        let path = ReceiptCLI.vector(real.file).path
        let result = try CLI.run(["--format", "jsonl", path])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stderr.isEmpty)
        let object = try ReceiptCLI.object(result)
        #expect(object["type"] as? String == "receipt")
        #expect(object["envelope"] as? String == "pkcs7")
        #expect(object["status"] as? String == "valid")
        #expect(object["xcode"] as? Bool == false)
        let payload = try #require(object["payload"] as? [String: Any])
        #expect(payload["bundle_id"] as? String == real.bundleID)
        #expect(payload["receipt_type"] as? String == real.type)
        #expect(payload["receipt_creation_date"] as? String == real.created)
        #expect((payload["in_app"] as? [Any])?.count == real.inApp)
        let checkTime = try #require(object["checkTime"] as? [String: Any])
        #expect(checkTime["basis"] as? String == "receipt_creation_date")
        let validNow = try #require(object["validNow"] as? [String: Any])
        #expect(validNow["valid"] as? Bool == false)
        #expect(ReceiptCLI.failedChecks(object).isEmpty)

        let now = try CLI.run(["--format", "jsonl", "--at", "now", path])
        #expect(now.status == 2)
        let expired = try ReceiptCLI.object(now)
        #expect(expired["status"] as? String == "invalid-chain")
        #expect(ReceiptCLI.failedChecks(expired) == ["chain"])
        let reason = try #require(expired["reason"] as? String)
        #expect(reason.hasPrefix("chain: certificate has expired (X509_V_ERR 10) \(real.expired)"), "\(reason)")
    }

    @Test(arguments: ["01-xcode-apple-backyardbirds-empty.der", "02-xcode-apple-backyardbirds-1iap.der"])
    func xcodeReceiptIsValidOnlyWithItsStoreKitCertificateAsRoot(_ file: String) throws {
        let path = ReceiptCLI.vector(file).path
        let untrusted = try CLI.run(["--format", "jsonl", path])
        #expect(untrusted.status == 2)
        let refused = try ReceiptCLI.object(untrusted)
        #expect(refused["xcode"] as? Bool == true)
        #expect(refused["status"] as? String == "invalid-chain")
        #expect(ReceiptCLI.failedChecks(refused) == ["chain"])
        #expect((refused["reason"] as? String)?.contains("StoreKit Testing in Xcode receipt") == true)

        // The certificate Xcode signs with, taken out of the receipt itself.
        let bytes = try [UInt8](Data(contentsOf: ReceiptCLI.vector(file)))
        let storeKit = try CMSSignedData(bytes: bytes).signerCertificate
        #expect(storeKit.commonName == "StoreKit")
        let root = try ReceiptCLI.file(storeKit.derBytes, named: "storekit.cer")
        let trusted = try CLI.run(["--format", "jsonl", "--root", root, path])
        #expect(trusted.status == 0, "\(trusted.stdout)")
        let valid = try ReceiptCLI.object(trusted)
        #expect(valid["xcode"] as? Bool == true)
        #expect(valid["status"] as? String == "valid")
        #expect((valid["payload"] as? [String: Any])?["receipt_type"] as? String == "Xcode")
        #expect(ReceiptCLI.check("chain", of: valid)?["passed"] as? Bool == true)
        // Not an App Store receipt: Apple's marker OIDs are not asked of it.
        #expect(ReceiptCLI.check("leaf-oid", of: valid) == nil)
    }
}
