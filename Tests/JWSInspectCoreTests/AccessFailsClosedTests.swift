import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// Issue 23, items 1 to 4: every access decision fails closed. Access is granted only on data
/// that verified; a transaction or receipt entry whose dates or flags do not read grants
/// nothing; data StoreKit Testing in Xcode signed is Xcode's whatever it says.
@Suite struct AccessFailsClosedTests {
    let pki = Fixtures.pki
    /// 2025-03-01: the test transaction (expiring 2025-01-31 in `TestPayloads`) is moved to
    /// expire after it, so that access is granted when the token verifies.
    static let accessTime = Date(timeIntervalSince1970: 1_740_787_200)

    /// A transaction whose expiry is after `accessTime`, with `extra` members appended.
    static func transaction(expires: String = "1767225600000", type: String = "Auto-Renewable Subscription")
        -> String
    {
        let members = expires.isEmpty ? "" : #","expiresDate":\#(expires)"#
        return
            #"{"transactionId":"1","originalTransactionId":"1","bundleId":"\#(TestPayloads.bundleId)","productId":"p","type":"\#(type)","purchaseDate":1735603200000,"signedDate":\#(TestPayloads.signedDate),"environment":"Sandbox"\#(members)}"#
    }

    static func inspect(_ token: String, _ configure: (inout VerificationOptions) -> Void = { _ in }) -> Inspection {
        Fixtures.inspect(token) { options in
            options.now = accessTime
            configure(&options)
        }
    }

    // MARK: 1. Grants only when verified

    @Test func aVerifiedTransactionGrantsAccess() throws {
        let result = Self.inspect(pki.sign(payloadJSON: Self.transaction()))
        #expect(result.status == .valid, "\(result.reason)")
        let access = try #require(result.fullPresentation?.access.access)
        #expect(access.grantsAccess == true)
        #expect(result.summary?.hasSuffix("grants access until 2026-01-01T00:00:00.000Z.") == true)
    }

    enum Failure: String, CaseIterable, Sendable {
        case badSignature, tamperedPayload, untrustedRoot, wrongApp, wrongEnvironment, noVerify, forgedNested
    }

    /// Whatever the payload says, data that failed verification grants nothing: `grantsAccess`
    /// is nil, and the summary and explanation say no decision was made.
    @Test(arguments: Failure.allCases) func dataThatDidNotVerifyNeverGrantsAccess(_ failure: Failure) throws {
        let genuine = pki.sign(payloadJSON: Self.transaction())
        var token = genuine
        var configure: (inout VerificationOptions) -> Void = { _ in }
        switch failure {
        case .badSignature:
            var parts = genuine.split(separator: ".").map(String.init)
            let middle = parts[2].index(parts[2].startIndex, offsetBy: 20)
            parts[2].replaceSubrange(middle...middle, with: parts[2][middle] == "A" ? "B" : "A")
            token = parts.joined(separator: ".")
        case .tamperedPayload:
            token = NestedTokenTests.tamper(genuine, payload: Self.transaction(expires: "4102444800000"))
        case .untrustedRoot:
            token = Fixtures.attacker.sign(payloadJSON: Self.transaction())
        case .wrongApp:
            configure = { $0.expectedBundleId = "com.other.app" }
        case .wrongEnvironment:
            configure = { $0.expectedEnvironment = .production }
        case .noVerify:
            configure = { $0.verifySignatures = false }
        case .forgedNested:
            let forged = Fixtures.attacker.sign(payloadJSON: Self.transaction())
            let body =
                #"{"notificationType":"DID_RENEW","notificationUUID":"u","version":"2.0","signedDate":\#(TestPayloads.signedDate),"data":{"bundleId":"\#(TestPayloads.bundleId)","environment":"Sandbox","signedTransactionInfo":"\#(forged)"}}"#
            token = pki.sign(payloadJSON: body)
        }
        let result = Self.inspect(token, configure)
        #expect(result.status != .valid)
        let decision = try #require(result.fullPresentation?.access)
        #expect(decision.access.grantsAccess == nil, "\(decision.access.explanation)")
        #expect(result.access == decision)
        #expect(decision.access.explanation.hasPrefix("no access decision for data "))
        let summary = try #require(result.summary)
        #expect(!summary.contains("grants access"), "\(summary)")
        #expect(summary.contains("no access decision"), "\(summary)")
        if failure == .forgedNested {
            #expect(decision.path == "data.signedTransactionInfo")
            #expect(result.nested.first?.inspection.fullPresentation?.access.access.grantsAccess == nil)
        }
        if failure == .noVerify {
            #expect(result.status == .unverified)
            #expect(
                decision.access.explanation
                    == "no access decision for data not verified (nothing was checked); "
                    + "if authentic, it would grant access until 2026-01-01T00:00:00.000Z")
        }
    }

    /// `--require-active` on data that is authentic but expired: the decision itself (grants
    /// no access) is shown, as the reason of exit 6.
    @Test func anAuthenticInactiveTokenKeepsItsDecision() throws {
        let result = Self.inspect(pki.sign(payloadJSON: Self.transaction(expires: "1738281600000"))) {
            $0.requireActive = true
        }
        #expect(result.status == .inactive)
        let access = try #require(result.access?.access)
        #expect(access.grantsAccess == false)
        #expect(access.explanation == "grants no access: expired 2025-01-31T00:00:00.000Z")
    }

    @Test func aKindThatCannotSayIsNamedWithItsArticle() {
        let access = Entitlement.access(kind: .apiToken, payload: [:], at: Self.accessTime)
        #expect(access.grantsAccess == false)
        #expect(access.state == .notAnEntitlement)
        #expect(
            access.explanation
                == "not an entitlement: an App Store Server API token is signed by the developer; it proves no purchase"
        )
    }

    // MARK: 2. No usable expiry grants nothing

    struct Expiry: Sendable, CustomTestStringConvertible {
        let expires: String
        let type: String
        let grants: Bool?
        let says: String
        var testDescription: String { "\(type) expiresDate \(expires.isEmpty ? "absent" : expires)" }
    }

    static let expiries: [Expiry] = [
        Expiry(
            expires: "", type: "Auto-Renewable Subscription", grants: false,
            says: "grants no access: an auto-renewable subscription without expiresDate"),
        Expiry(
            expires: "null", type: "Auto-Renewable Subscription", grants: false,
            says: "grants no access: an auto-renewable subscription without expiresDate"),
        Expiry(
            expires: #""1767225600000""#, type: "Auto-Renewable Subscription", grants: false,
            says: #"grants no access: expiresDate "1767225600000" is not a valid date"#),
        Expiry(
            expires: "1e300", type: "Auto-Renewable Subscription", grants: false,
            says: "grants no access: expiresDate 1e+300 is not a valid date"),
        Expiry(
            expires: "-1e300", type: "Auto-Renewable Subscription", grants: false,
            says: "grants no access: expiresDate -1e+300 is not a valid date"),
        Expiry(
            expires: #"{"ms":1}"#, type: "Non-Consumable", grants: false,
            says: "grants no access: expiresDate"),
        Expiry(
            expires: "", type: "Non-Renewing Subscription", grants: nil,
            says: "no access decision: a non-renewing subscription's term is the app's to decide"),
        Expiry(expires: "", type: "Someday Subscription", grants: nil, says: #"no access decision: type "Someday"#),
        Expiry(
            expires: "", type: "Non-Consumable", grants: true, says: "grants access: a non-consumable, not revoked"),
        Expiry(
            expires: "1767225600000", type: "Non-Renewing Subscription", grants: true,
            says: "grants access until 2026-01-01"),
    ]

    @Test(arguments: expiries) func accessNeedsAUsableExpiry(_ expiry: Expiry) throws {
        let token = pki.sign(payloadJSON: Self.transaction(expires: expiry.expires, type: expiry.type))
        let result = Self.inspect(token) { $0.requireActive = true }
        let access = try #require(result.access?.access)
        #expect(access.grantsAccess == expiry.grants, "\(access.explanation)")
        #expect(access.explanation.hasPrefix(expiry.says), "\(access.explanation)")
        #expect(result.status == (expiry.grants == true ? .valid : .inactive), "\(result.reason)")
        #expect(result.check(.active)?.detail.hasPrefix(expiry.says) == true)
    }

    @Test(arguments: [
        (#""revocationDate":"2025-01-02""#, "revocationDate \"2025-01-02\" is there but no date"),
        (#""revocationDate":{}"#, "revocationDate {} is there but no date"),
        (#""isUpgraded":"true""#, "isUpgraded \"true\" is neither true nor false"),
        (#""isUpgraded":1"#, "isUpgraded 1 is neither true nor false"),
    ])
    func unreadableRevocationOrUpgradeGrantsNothing(_ member: String, _ says: String) throws {
        let payload = Self.transaction().dropLast() + "," + member + "}"
        let result = Self.inspect(pki.sign(payloadJSON: String(payload))) { $0.requireActive = true }
        #expect(result.status == .inactive, "\(result.reason)")
        #expect(result.access?.access.explanation == "grants no access: " + says + Self.tail(says))
    }

    private static func tail(_ says: String) -> String {
        says.hasPrefix("revocationDate")
            ? ", so the transaction is taken as revoked" : ", so no access can be read from it"
    }

    // MARK: 3. Receipts: a date that does not read grants nothing

    static let day: TimeInterval = 86_400
    static let start = ReceiptAccessTests.start

    static func receipt(_ entry: InAppEntry, expiration: TestReceiptValue? = nil) throws -> ReceiptPayload {
        var builder = ReceiptBuilder(receiptType: ReceiptBuilder.production, bundleID: "com.example.app")
        builder.inApp = [entry]
        if let expiration { builder.extraAttributes = [TestReceiptAttribute(type: 21, value: expiration)] }
        return try ReceiptPayload(der: builder.der())
    }

    static func entry(_ replaced: [Int: TestReceiptValue] = [:], expires: Double? = nil) -> InAppEntry {
        var entry = InAppEntry(
            productID: "com.example.pro", transactionID: "1", purchaseDate: start.addingTimeInterval(-day),
            expiresDate: expires.map { start.addingTimeInterval($0 * day) })
        entry.replacedValues = replaced
        return entry
    }

    @Test(arguments: [
        ([1708: TestReceiptValue.integer(1_893_456_000)], "expires_date is an INTEGER (1893456000), not a date"),
        ([1708: .raw([0x04, 0x02, 0x31, 0x32])], "expires_date is not a date string (DER 04023132…)"),
        ([1708: .ia5String("soon")], #"expires_date "soon" is not a date"#),
        ([1712: .raw([0x04, 0x00])], "cancellation_date is not a date string (DER 0400…)"),
        ([1712: .integer(0)], "cancellation_date is an INTEGER (0), not a date"),
        ([1712: .utf8String("yesterday")], #"cancellation_date "yesterday" is not a date"#),
    ])
    func anInAppDateThatDoesNotReadGrantsNothing(_ replaced: [Int: TestReceiptValue], _ problem: String) throws {
        let payload = try Self.receipt(Self.entry(replaced, expires: 30))
        #expect(try Self.receipt(Self.entry(expires: 30)).isActive(at: Self.start), "control: it would grant")
        let access = payload.access(at: Self.start)
        #expect(access.grantsAccess == false)
        #expect(
            access.explanation == "grants no access: in-app entry 1 (com.example.pro): \(problem), so it grants nothing"
        )
        #expect(!payload.isActive(at: Self.start))
        #expect(payload.activeEntries(at: Self.start).isEmpty)
    }

    /// A documented field twice in a receipt or an entry: which one counts would be a guess,
    /// so the receipt is refused (exit 5), as a JSON document naming a member twice is.
    @Test(arguments: [
        (1708, "in-app entry 1 holds expires_date (field 1708)"),
        (1712, "in-app entry 1 holds cancellation_date (field 1712)"),
        (1702, "in-app entry 1 holds product_id (field 1702)"),
        (2, "the receipt holds bundle_id (field 2)"),
        (21, "the receipt holds expiration_date (field 21)"),
    ])
    func aDocumentedFieldTwiceIsRefused(_ type: Int, _ says: String) throws {
        var entry = Self.entry(expires: 30)
        var builder = ReceiptBuilder(receiptType: ReceiptBuilder.production, bundleID: "com.example.app")
        let second = TestReceiptAttribute(type: type, value: .ia5String("2099-01-01T00:00:00Z"))
        if type > 1000 { entry.extraAttributes = [second] } else { builder.extraAttributes = [second] }
        if type == 21 { builder.expirationDate = Self.start.addingTimeInterval(Self.day) }
        builder.inApp = [entry]
        #expect {
            try ReceiptPayload(der: builder.der())
        } throws: { error in
            "\(error)" == "receipt refused: \(says) more than once, so which one counts is ambiguous"
        }
        let unknown = TestReceiptAttribute(type: 9_999, value: .integer(1))
        builder.extraAttributes = [unknown, unknown]
        entry.extraAttributes = []
        builder.inApp = [entry]
        builder.expirationDate = nil
        #expect(try ReceiptPayload(der: builder.der()).inApp.count == 1, "an undocumented type may repeat")
    }

    @Test func aNonConsumableStillGrantsWithEmptyDates() throws {
        // Apple's receipts write "" for no expiry and no cancellation: that is absent, not unreadable.
        #expect(try Self.receipt(Self.entry()).access(at: Self.start).grantsAccess == true)
    }

    @Test func theReceiptsOwnExpirationDateEndsAccess() throws {
        let entry = Self.entry(expires: 30)
        let past = try Self.receipt(entry, expiration: .ia5String("2024-12-31T00:00:00Z"))
        #expect(past.access(at: Self.start).grantsAccess == false)
        #expect(
            past.access(at: Self.start).explanation
                == "grants no access: the receipt expired 2024-12-31T00:00:00.000Z (expiration_date)")
        #expect(!past.isActive(at: Self.start) && past.activeEntries(at: Self.start).isEmpty)
        #expect(past.summary(at: Self.start).hasSuffix("receipt expired 2024-12-31: grants no access."))
        let future = try Self.receipt(entry, expiration: .ia5String("2025-12-31T00:00:00Z"))
        #expect(future.access(at: Self.start).grantsAccess == true)
        let unreadable = try Self.receipt(entry, expiration: .integer(4_102_444_800))
        #expect(unreadable.access(at: Self.start).grantsAccess == false)
        #expect(unreadable.access(at: Self.start).explanation.contains("expiration_date is an INTEGER"))
    }

    // MARK: 4. Xcode-signed data is Xcode's

    @Test(arguments: ["Production", "Sandbox"]) func anXcodeTokenSayingProductionIsXcodes(_ says: String) {
        let payload = XcodeTokenTests.payload.replacingOccurrences(
            of: #""environment":"Xcode""#, with: #""environment":"\#(says)""#)
        let token = XcodeTokenTests.token(payload: payload)
        let claimed = Verifier(
            options: XcodeTokenTests.trustingXcode {
                $0.expectedEnvironment = says == "Production" ? .production : .sandbox
            }
        ).inspect(token, source: "x")
        #expect(claimed.isXcode)
        #expect(claimed.status == .wrongEnvironment, "\(claimed.reason)")
        #expect(
            claimed.check(.environment)?.detail
                == "signed by StoreKit Testing in Xcode, so its environment is Xcode whatever the payload says "
                + "(\(says)); expected \(says)")
        let xcode = Verifier(options: XcodeTokenTests.trustingXcode { $0.expectedEnvironment = .xcode }).inspect(
            token, source: "x")
        #expect(xcode.status == .valid, "\(xcode.reason)")
    }

    @Test func anXcodeReceiptSayingProductionIsXcodes() throws {
        let storeKit = StoreKitTestingSigner(commonName: "StoreKit")
        let receipt = storeKit.sign(ReceiptBuilder(receiptType: ReceiptBuilder.production).der())
        func inspect(_ environment: Environment) throws -> Inspection {
            var options = VerificationOptions(
                trustStore: TrustStore(roots: [try Certificate(derBytes: storeKit.certificate.der)]))
            options.now = Fixtures.now
            options.expectedEnvironment = environment
            return Verifier(options: options).inspectReceipt(receipt, source: "r")
        }
        let production = try inspect(.production)
        #expect(production.isXcode)
        #expect(production.status == .wrongEnvironment, "\(production.reason)")
        #expect(
            production.check(.environment)?.detail
                == "signed by StoreKit Testing in Xcode, so its environment is Xcode whatever receipt_type says "
                + "(Production); expected Production")
        #expect(try inspect(.xcode).status == .valid)
    }
}
