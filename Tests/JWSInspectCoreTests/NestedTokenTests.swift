import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// JWS nested in notifications are decoded and verified with the parent's roots,
/// time policy and expectations, and a nested failure fails the parent.
@Suite struct NestedTokenTests {
    let pki = Fixtures.pki

    func notification(transaction: String?, renewal: String? = nil, environment: String = "Sandbox") -> String {
        var data =
            #""bundleId":"\#(TestPayloads.bundleId)","appAppleId":\#(TestPayloads.appAppleId),"environment":"\#(environment)","status":1"#
        if let transaction { data += #","signedTransactionInfo":"\#(transaction)""# }
        if let renewal { data += #","signedRenewalInfo":"\#(renewal)""# }
        return
            #"{"notificationType":"DID_RENEW","notificationUUID":"u","version":"2.0","signedDate":\#(TestPayloads.signedDate),"data":{\#(data)}}"#
    }

    static func tamper(_ token: String, payload: String) -> String {
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(payload.utf8))
        return parts.joined(separator: ".")
    }

    @Test func nestedTokensAreVerifiedUnderTheirParent() throws {
        let transaction = pki.sign(payloadJSON: TestPayloads.transaction())
        let renewal = pki.sign(payloadJSON: TestPayloads.renewalInfo())
        let result = Fixtures.inspect(pki.sign(payloadJSON: notification(transaction: transaction, renewal: renewal)))
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.nested.map(\.path) == ["data.signedTransactionInfo", "data.signedRenewalInfo"])
        #expect(result.nested.map(\.inspection.kind) == [.transaction, .renewalInfo])
        #expect(result.nested.allSatisfy { $0.inspection.status == .valid })
        #expect(result.nested[0].inspection.source == "test \u{203A} data.signedTransactionInfo")
        #expect(result.reason.contains("nested data.signedTransactionInfo and data.signedRenewalInfo too"))
    }

    @Test func notificationBodiesAreReadWheneverThePayloadIsTakenAsANotification() {
        // Bodies are decoded for batch verification only when the payload is a notification:
        // recognised as one, or taken as one with --type even though it looks like something else.
        let transaction = pki.sign(payloadJSON: TestPayloads.transaction())
        let odd =
            #"{"transactionId":"1","signedDate":\#(TestPayloads.signedDate),"data":{"signedTransactionInfo":"\#(transaction)"}}"#
        let recognised = Fixtures.inspect(pki.sign(payloadJSON: odd))
        #expect(recognised.kind == .transaction)
        #expect(recognised.nested.isEmpty, "a transaction has no nested tokens")
        let taken = Fixtures.inspect(pki.sign(payloadJSON: odd)) { $0.kindOverride = .notification }
        #expect(taken.kind == .notification)
        #expect(taken.nested.map(\.path) == ["data.signedTransactionInfo"])
        #expect(taken.nested.first?.inspection.status == .valid)
    }

    @Test func tamperedNestedTransactionFailsAValidNotification() {
        let tampered = Self.tamper(
            pki.sign(payloadJSON: TestPayloads.transaction()),
            payload: TestPayloads.transaction(transactionId: "9999"))
        let result = Fixtures.inspect(pki.sign(payloadJSON: notification(transaction: tampered)))
        #expect(result.checks.allSatisfy { $0.passed }, "the outer token itself is fine")
        #expect(result.status == .invalidSignature)
        #expect(result.reason.hasPrefix("nested data.signedTransactionInfo failed: signature: "))
        #expect(result.nested.first?.inspection.status == .invalidSignature)
    }

    @Test func nestedTokenFromAnUntrustedChainFails() {
        let forged = Fixtures.attacker.sign(payloadJSON: TestPayloads.transaction())
        let result = Fixtures.inspect(pki.sign(payloadJSON: notification(transaction: forged)))
        #expect(result.status == .invalidChain)
        #expect(result.reason.hasPrefix("nested data.signedTransactionInfo failed: chain: "))
    }

    @Test func nestedExpectationsAreCompared() {
        // The notification says Sandbox, its transaction says Production.
        let production = pki.sign(payloadJSON: TestPayloads.transaction(environment: "Production"))
        let result = Fixtures.inspect(pki.sign(payloadJSON: notification(transaction: production))) {
            $0.expectedEnvironment = .sandbox
        }
        #expect(result.status == .wrongEnvironment)
        #expect(result.check(.environment)?.passed == true)
        #expect(result.nested.first?.inspection.check(.environment)?.passed == false)
    }

    @Test func nestedValueThatIsNotAJWSIsMalformed() {
        let payload = #"{"notificationType":"TEST","signedDate":1735689600000,"data":{"signedTransactionInfo":42}}"#
        let result = Fixtures.inspect(pki.sign(payloadJSON: payload))
        #expect(result.status == .malformed)
        #expect(result.reason.contains("data.signedTransactionInfo is a number, expected a JWS string"))
        let garbage =
            #"{"notificationType":"TEST","signedDate":1735689600000,"data":{"signedRenewalInfo":"eyJhbGciOi.x.y"}}"#
        #expect(Fixtures.inspect(pki.sign(payloadJSON: garbage)).status == .malformed)
    }

    @Test func appDataNestsAnAppTransaction() {
        let app = pki.sign(payloadJSON: TestPayloads.appTransaction())
        let payload =
            #"{"notificationType":"TEST","signedDate":1735689600000,"appData":{"appAppleId":1,"bundleId":"b","environment":"Sandbox","signedAppTransactionInfo":"\#(app)"}}"#
        let result = Fixtures.inspect(pki.sign(payloadJSON: payload))
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.nested.map(\.path) == ["appData.signedAppTransactionInfo"])
        #expect(result.nested.first?.inspection.kind == .appTransaction)
    }

    @Test func realSubscribedNotificationShowsItsNestedTokensVerified() throws {
        var options = VerificationOptions()
        options.now = RealSampleTests.now
        let result = Verifier(options: options).inspect(
            try Fixtures.sample("notification-subscribed-sandbox-2025.jws"), source: "s")
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.nested.map(\.path) == ["data.signedTransactionInfo", "data.signedRenewalInfo"])
        for nested in result.nested {
            #expect(nested.inspection.status == .valid)
            #expect(nested.inspection.checks.count == 7)
            #expect(nested.inspection.chain.first?.knownAs?.contains("receipt-signing leaf") == true)
        }
        #expect(result.nested[0].inspection.jws?.payload.object["productId"] == .string("com.getsession.org.pro_sub"))
    }
}
