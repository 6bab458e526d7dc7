import AppStoreTestData
import Foundation
import TestPKI
import Testing

/// Minted receipts through the command, one per failure class: each exits with its documented
/// status and names the one check that failed (table, JSON lines and `-q` alike).
@Suite(.timeLimit(.minutes(10))) struct ReceiptCommandFailureTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let receipt: [UInt8]
        let arguments: [String]
        let exit: Int32
        let status: String
        /// The one failing check; nil when none fails.
        let check: String?
        var testDescription: String { name }

        init(_ name: String, _ receipt: [UInt8], _ arguments: [String] = [], exit: Int32, check: String?) {
            self.name = name
            self.receipt = receipt
            self.arguments = arguments
            self.exit = exit
            self.check = check
            status = Self.statuses[exit] ?? "?"
        }

        static let statuses: [Int32: String] = [
            0: "valid", 1: "invalid-signature", 2: "invalid-chain", 3: "wrong-environment", 4: "wrong-app",
        ]
    }

    static let chain = ReceiptCLI.chain
    static let content = ReceiptBuilder().der()
    static let receipt = ReceiptCLI.receipt
    /// 2024-12-24T00:00:00Z: a week before the receipts' creation date, 2025-01-01.
    static let beforeCreation = Date(timeIntervalSince1970: 1_734_998_400)

    /// The receipt with a byte of its opaque_value (raw bytes: the content still decodes) changed.
    static func tamperedContent() -> [UInt8] {
        let offset = content.firstRange(of: ReceiptBuilder().opaqueValue)!.lowerBound + 3
        return ReceiptMinter.tamperingContent(receipt, at: offset)
    }

    static func signed(_ builder: ReceiptBuilder) -> [UInt8] { chain.sign(builder.der()) }

    static let failureClasses: [Case] = [
        Case("valid", receipt, exit: 0, check: nil),
        Case("tampered content", tamperedContent(), exit: 1, check: "signature"),
        Case("tampered signature", ReceiptMinter.tamperingSignature(receipt, at: 100), exit: 1, check: "signature"),
        Case(
            "signed under another root than --root",
            TestReceiptChain(rootCN: "jwsinspect Test Other Receipt Root").sign(content), exit: 2, check: "chain"),
        Case(
            "leaf without its marker OID", TestReceiptChain(root: chain.root, leafHasOID: false).sign(content),
            exit: 2, check: "leaf-oid"),
        Case(
            "intermediate without its marker OID",
            TestReceiptChain(root: chain.root, intermediateHasOID: false).sign(content), exit: 2,
            check: "intermediate-oid"),
        Case(
            "leaf expired at the creation date",
            TestReceiptChain(root: chain.root, leafNotAfter: beforeCreation).sign(content), exit: 2, check: "chain"),
        Case("other bundle ID", receipt, ["--bundle-id", "com.example.other"], exit: 4, check: "bundle-id"),
        Case(
            "ProductionSandbox, Production expected", receipt, ["--environment", "Production"], exit: 3,
            check: "environment"),
        Case(
            "Production, Sandbox expected", signed(ReceiptBuilder(receiptType: ReceiptBuilder.production)),
            ["--environment", "Sandbox"], exit: 3, check: "environment"),
    ]

    @Test(arguments: failureClasses)
    func failureClass(_ test: Case) throws {
        let receipt = try ReceiptCLI.file(test.receipt, named: "receipt.der")
        let arguments = ["--root", ReceiptCLI.rootFile] + test.arguments + [receipt]
        let result = ReceiptCLI.run(["--format", "jsonl"] + arguments)
        #expect(result.status == test.exit, "\(result.stdout)")
        #expect(result.stderr.isEmpty)
        let object = try ReceiptCLI.object(result)
        #expect(object["type"] as? String == "receipt")
        #expect(object["status"] as? String == test.status)
        #expect(ReceiptCLI.failedChecks(object) == (test.check.map { [$0] } ?? []))
        if let check = test.check {
            #expect((object["reason"] as? String)?.hasPrefix("\(check): ") == true, "\(object["reason"] ?? "")")
        } else {
            #expect(
                ReceiptCLI.checks(object).map { $0["name"] as? String } == [
                    "signature", "chain", "leaf-oid", "intermediate-oid",
                ])
        }
        let table = ReceiptCLI.run(arguments)
        #expect(table.status == test.exit)
        #expect(table.stdout.hasPrefix(test.exit == 0 ? "VALID" : "INVALID (\(test.status))"), "\(table.stdout)")
        let quiet = ReceiptCLI.run(["-q"] + arguments)
        #expect(quiet.status == test.exit)
        #expect(quiet.stdout.isEmpty)
    }

    /// Without `--root`, receipts are checked against Apple Inc. Root alone: a test chain is refused.
    @Test func theDefaultTrustAnchorIsAppleIncRoot() throws {
        let result = ReceiptCLI.run(["--format", "jsonl", try ReceiptCLI.file(Self.receipt, named: "receipt.der")])
        #expect(result.status == 2)
        let object = try ReceiptCLI.object(result)
        #expect(ReceiptCLI.failedChecks(object) == ["chain"])
    }

    /// receipt_type Production is Production, ProductionSandbox Sandbox, Xcode Xcode; every
    /// other pairing is exit 3.
    @Test(arguments: [
        (ReceiptBuilder.production, "Production"), (ReceiptBuilder.sandbox, "Sandbox"), (ReceiptBuilder.xcode, "Xcode"),
    ])
    func environmentIsReceiptTypeMapped(type: String, environment: String) throws {
        let receipt = try ReceiptCLI.file(Self.signed(ReceiptBuilder(receiptType: type)), named: "receipt.der")
        for expected in ["Production", "Sandbox", "Xcode", "LocalTesting"] {
            let result = ReceiptCLI.run(
                ["--format", "jsonl", "--root", ReceiptCLI.rootFile, "--environment", expected, receipt])
            let object = try ReceiptCLI.object(result)
            let check = try #require(ReceiptCLI.check("environment", of: object))
            if expected == environment {
                #expect(result.status == 0, "\(type) as \(expected)")
                #expect(check["passed"] as? Bool == true)
            } else {
                #expect(result.status == 3, "\(type) as \(expected)")
                #expect(ReceiptCLI.failedChecks(object) == ["environment"])
                #expect((check["detail"] as? String)?.hasSuffix("expected \(expected)") == true)
            }
        }
    }

    /// `--device-id`: sha1_hash must be SHA-1 of the identifierForVendor, opaque_value and bundle_id.
    @Test(arguments: [
        (false, ReceiptBuilder.defaultDeviceID.uuidString, 0),
        (true, ReceiptBuilder.defaultDeviceID.uuidString, 4),
        (false, "00000000-0000-4000-8000-000000000000", 4),
    ])
    func deviceHashIsCompared(wrongHash: Bool, device: String, exit: Int32) throws {
        var builder = ReceiptBuilder()
        builder.wrongDeviceHash = wrongHash
        let receipt = try ReceiptCLI.file(Self.signed(builder), named: "receipt.der")
        let result = ReceiptCLI.run([
            "--format", "jsonl", "--root", ReceiptCLI.rootFile, "--device-id", device, receipt,
        ])
        #expect(result.status == exit)
        let object = try ReceiptCLI.object(result)
        let check = try #require(ReceiptCLI.check("device-verification", of: object))
        #expect(check["passed"] as? Bool == (exit == 0))
        #expect(ReceiptCLI.failedChecks(object) == (exit == 0 ? [] : ["device-verification"]))
        #expect(object["status"] as? String == (exit == 0 ? "valid" : "wrong-app"))
    }

    /// `--no-verify` decodes a receipt whose signature and chain would both fail: exit 0, no check run.
    @Test func noVerifyChecksNothingCryptographic() throws {
        let tampered = ReceiptMinter.tamperingContent(
            TestReceiptChain(rootCN: "jwsinspect Test Unverified Receipt Root").sign(Self.content),
            at: Self.content.firstRange(of: ReceiptBuilder().opaqueValue)!.lowerBound)
        let file = try ReceiptCLI.file(tampered, named: "receipt.der")
        let result = ReceiptCLI.run(["--format", "jsonl", "--no-verify", file])
        #expect(result.status == 0)
        let object = try ReceiptCLI.object(result)
        #expect(object["type"] as? String == "receipt")
        #expect(object["status"] as? String == "unverified")
        #expect(object["verified"] as? Bool == false)
        #expect(ReceiptCLI.checks(object).isEmpty)
        #expect((object["reason"] as? String)?.hasPrefix("NOT VERIFIED (--no-verify)") == true)
        #expect((object["payload"] as? [String: Any])?["bundle_id"] as? String == TestPayloads.bundleId)
        let table = ReceiptCLI.run(["--no-verify", file])
        #expect(table.status == 0)
        #expect(table.stdout.hasPrefix("UNVERIFIED — NOTHING WAS CHECKED (--no-verify)"), "\(table.stdout)")
    }

    /// One `--require-active` case: the in-app entries, `--access-at` (nil: now, 2025-06-01), the outcome.
    struct Access: Sendable, CustomTestStringConvertible {
        let name: String
        let inApp: [InAppEntry]
        let at: String?
        let grants: Bool
        let detail: String
        var testDescription: String { name }
    }

    static let purchased = Date(timeIntervalSince1970: 1_733_011_200)  // 2024-12-01
    static let march = Date(timeIntervalSince1970: 1_740_787_200)  // 2025-03-01
    static let december = Date(timeIntervalSince1970: 1_764_547_200)  // 2025-12-01

    static func subscription(expires: Date) -> InAppEntry {
        InAppEntry(
            productID: "com.example.pro.monthly", transactionID: "1001", purchaseDate: purchased, expiresDate: expires)
    }

    static func lifetime(cancelled: Date? = nil) -> InAppEntry {
        InAppEntry(
            productID: "com.example.lifetime", transactionID: "1002", purchaseDate: purchased,
            cancellationDate: cancelled)
    }

    static let accessCases = [
        Access(name: "no in-app purchase", inApp: [], at: nil, grants: false, detail: "holds no in-app purchase"),
        Access(
            name: "subscription expired before now", inApp: [subscription(expires: march)], at: nil, grants: false,
            detail: "latest subscription com.example.pro.monthly expired 2025-03-01T00:00:00"),
        Access(
            name: "the same subscription at an --access-at before its expiry", inApp: [subscription(expires: march)],
            at: "2025-02-01T00:00:00Z", grants: true, detail: "until 2025-03-01T00:00:00"),
        Access(
            name: "cancelled non-consumable", inApp: [lifetime(cancelled: Date(timeIntervalSince1970: 1_738_368_000))],
            at: nil, grants: false, detail: "cancelled"),
        Access(
            name: "unexpired subscription", inApp: [subscription(expires: december)], at: nil, grants: true,
            detail: "until 2025-12-01T00:00:00"),
        Access(
            name: "the same subscription at an --access-at after its expiry", inApp: [subscription(expires: december)],
            at: "2025-12-15T00:00:00Z", grants: false, detail: "expired 2025-12-01T00:00:00"),
        Access(name: "non-consumable", inApp: [lifetime()], at: nil, grants: true, detail: "(a non-consumable)"),
        Access(
            name: "the cancelled non-consumable before its cancellation_date: granted until it",
            inApp: [lifetime(cancelled: Date(timeIntervalSince1970: 1_738_368_000))], at: "2025-01-15T00:00:00Z",
            grants: true, detail: "until 2025-02-01T00:00:00.000Z: com.example.lifetime is cancelled then"),
    ]

    @Test(arguments: accessCases)
    func requireActive(_ test: Access) throws {
        var builder = ReceiptBuilder()
        builder.inApp = test.inApp
        let receipt = try ReceiptCLI.file(Self.signed(builder), named: "receipt.der")
        let at = test.at.map { ["--access-at", $0] } ?? []
        let result = ReceiptCLI.run(
            ["--format", "jsonl", "--root", ReceiptCLI.rootFile, "--require-active"] + at + [receipt])
        #expect(result.status == (test.grants ? 0 : 6), "\(result.stdout)")
        let object = try ReceiptCLI.object(result)
        #expect(object["status"] as? String == (test.grants ? "valid" : "inactive"))
        #expect(ReceiptCLI.failedChecks(object) == (test.grants ? [] : ["active"]))
        let check = try #require(ReceiptCLI.check("active", of: object))
        #expect((check["detail"] as? String)?.contains(test.detail) == true, "\(check["detail"] ?? "")")
        let access = try #require(object["access"] as? [String: Any])
        #expect(access["grants"] as? Bool == test.grants)
        #expect((access["time"] as? String)?.hasPrefix(test.at?.dropLast() ?? "2025-06-01T00:00:00") == true)
        // Without --require-active the verdict is the chain's alone.
        let plain = ReceiptCLI.run(["-q", "--root", ReceiptCLI.rootFile] + at + [receipt])
        #expect(plain.status == 0)
    }
}
