import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// Numbers read from a payload are untrusted: a date that is no date is named, never a trap
/// (a `time_t(1e19)` conversion used to kill the whole process, and the batch with it).
@Suite struct UntrustedNumberTests {
    static let pki = Fixtures.pki
    /// Numbers that JSON allows and no `time_t` holds once divided by 1000.
    static let notDates = [
        "1e22", "-1e22", "123456789012345678901234567890", "-123456789012345678901234567890", "1e308",
    ]

    @Test(arguments: notDates)
    func signedDateThatIsNoDateMeansCertificatesAreCheckedNow(_ value: String) {
        let token = Self.pki.sign(
            payloadJSON:
                #"{"transactionId":"1","bundleId":"com.example.app","signedDate":\#(value),"environment":"Sandbox"}"#)
        let result = Fixtures.inspect(token)
        #expect(result.status == .valid, "the test leaf is valid now: \(result.reason)")
        #expect(result.checkTime?.date == Fixtures.now)
        #expect(result.checkTime?.basis.description == "now (signedDate is not a valid date)")
        let note = result.notes.first { $0.hasPrefix("signedDate is ") }
        #expect(
            note?.hasSuffix(
                "not a valid date (milliseconds since 1970 within years 0001 to 9999); certificates checked now")
                == true,
            "\(result.notes)")
    }

    @Test(arguments: notDates)
    func receiptCreationDateThatIsNoDate(_ value: String) {
        let payload =
            #"{"receiptType":"Sandbox","appAppleId":1234,"bundleId":"com.example.app","applicationVersion":"1","receiptCreationDate":\#(value),"originalPurchaseDate":1700000000000}"#
        let result = Fixtures.inspect(Self.pki.sign(payloadJSON: payload))
        #expect(result.kind == .appTransaction)
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.checkTime?.basis.description == "now (receiptCreationDate is not a valid date)")
    }

    @Test func nestedTransactionWithSignedDateThatIsNoDate() {
        let nested = Self.pki.sign(
            payloadJSON:
                #"{"transactionId":"1","bundleId":"com.example.app","signedDate":1e22,"environment":"Sandbox"}"#)
        let notification = Self.pki.sign(
            payloadJSON:
                #"{"notificationType":"DID_RENEW","signedDate":1735689600000,"data":{"bundleId":"com.example.app","environment":"Sandbox","signedTransactionInfo":"\#(nested)"}}"#
        )
        let result = Fixtures.inspect(notification)
        #expect(result.status == .valid, "\(result.reason)")
        let inner = result.nested.first?.inspection
        #expect(inner?.checkTime?.basis.description == "now (signedDate is not a valid date)")
    }

    /// The reproduction from the report: Apple's real header, a crafted payload, 64 zero bytes
    /// as signature. It must be judged (invalid signature), not crash.
    @Test(arguments: notDates)
    func unsignedTokenWithAppleHeaderIsJudged(_ value: String) throws {
        let header = try Fixtures.sample("transaction-sandbox-2022.jws").split(separator: ".")[0]
        let payload = Base64URL.encode(Array(#"{"signedDate":\#(value),"receiptCreationDate":\#(value)}"#.utf8))
        let token = "\(header).\(payload).\(Base64URL.encode([UInt8](repeating: 0, count: 64)))"
        var options = VerificationOptions()
        options.now = Fixtures.now
        let verifier = Verifier(options: options)
        let result = verifier.inspect(token, source: "crafted")
        #expect(result.status.isFailure)
        #expect(result.checkTime?.basis.description == "now (signedDate is not a valid date)")
        let (deferred, signature) = verifier.inspectDeferringSignature(token, source: "crafted")
        #expect(signature?.verifies() == false)
        #expect(deferred.checkTime?.basis == result.checkTime?.basis)
    }

    @Test func theValidRangeIsYears0001To9999Exactly() {
        #expect(Timestamp.date(milliseconds: Timestamp.earliestMilliseconds) != nil)
        #expect(Timestamp.date(milliseconds: Timestamp.earliestMilliseconds - 1) == nil)
        #expect(Timestamp.date(milliseconds: Timestamp.latestMilliseconds) != nil)
        #expect(Timestamp.date(milliseconds: Timestamp.latestMilliseconds + 1) == nil)
        #expect(Timestamp.date(milliseconds: .nan) == nil)
        #expect(Timestamp.date(milliseconds: .infinity) == nil)
        #expect(
            ISO8601.string(Timestamp.date(milliseconds: Timestamp.latestMilliseconds)) == "9999-12-31T23:59:59.999Z")
        #expect(
            ISO8601.string(Timestamp.date(milliseconds: Timestamp.earliestMilliseconds)) == "0001-01-01T00:00:00.000Z")
        // The last valid signing time is usable as one; the next millisecond is not.
        let last = Fixtures.inspect(Self.pki.sign(payloadJSON: #"{"transactionId":"1","signedDate":253402300799999}"#))
        #expect(last.checkTime?.basis.description == "signedDate")
        #expect(last.status == .invalidChain, "the test leaf is long expired in 9999")
        let beyond = Fixtures.inspect(
            Self.pki.sign(payloadJSON: #"{"transactionId":"1","signedDate":253402300800000}"#))
        #expect(beyond.checkTime?.basis.description == "now (signedDate is not a valid date)")
    }

    @Test func pathValidationRefusesATimeOutsideTheRange() throws {
        let store = TrustStore(roots: [Fixtures.root()])
        let leaf = try Certificate(derBytes: Self.pki.leaf.der)
        let intermediate = try Certificate(derBytes: Self.pki.intermediate.der)
        let result = store.validate(
            leaf: leaf, intermediates: [intermediate], at: Date(timeIntervalSince1970: 1e19), checks: .rfc5280,
            floor: .level2)
        #expect(!result.isValid)
        #expect(result.errorText.contains("not a valid date"))
    }

    @Test(arguments: notDates)
    func expiresDateThatIsNoDateGrantsNoAccess(_ value: String) {
        let payload =
            #"{"transactionId":"1","bundleId":"com.example.app","signedDate":1735689600000,"type":"Auto-Renewable Subscription","expiresDate":\#(value)}"#
        let result = Fixtures.inspect(Self.pki.sign(payloadJSON: payload)) { $0.requireActive = true }
        #expect(result.status == .inactive)
        #expect(result.reason.contains("is not a valid date"), "\(result.reason)")
        let summary = result.summary ?? ""
        #expect(summary.contains("; grants no access: expiresDate "), "\(summary)")
        #expect(summary.contains(" is not a valid date"), "\(summary)")
        _ = result.display?.fields.count
    }

    @Test func relativePhrasesNeverTrap() {
        let now = Fixtures.now
        #expect(
            RelativeTime.phrase(Date(timeIntervalSince1970: 1e300), now: now)
                == "at an unrepresentable distance from now")
        #expect(
            RelativeTime.phrase(Date(timeIntervalSince1970: -1e300), now: now)
                == "at an unrepresentable distance from now")
        #expect(RelativeTime.phrase(now.addingTimeInterval(86_400 * 3), now: now) == "in 3 days")
    }
}
