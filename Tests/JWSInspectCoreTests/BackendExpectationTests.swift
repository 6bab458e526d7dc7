import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// `--account-token`, `--device-id` and `--require-active`.
@Suite struct BackendExpectationTests {
    let pki = Fixtures.pki
    static let account = UUID(uuidString: "7E3FB20B-4CDB-47CC-936D-99D65F608138")!
    static let device = UUID(uuidString: "2C9A1F6E-0B8D-4E3A-9C57-6F1E2D3C4B5A")!
    static let nonce = "0B6D8C4E-2A1F-4E3B-9D5C-7A8B9C0D1E2F"

    func transaction(_ extra: String) -> String {
        #"{"transactionId":"1","bundleId":"b","productId":"p","type":"Auto-Renewable Subscription","signedDate":1735689600000,"environment":"Sandbox"\#(extra)}"#
    }

    @Test func accountTokenMatchesCaseInsensitively() {
        let token = pki.sign(payloadJSON: transaction(#","appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138""#))
        let result = Fixtures.inspect(token) { $0.expectedAccountToken = Self.account }
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.check(.accountToken)?.passed == true)
    }

    @Test func accountTokenMismatchOrAbsenceFailsWithBothValues() {
        let other = pki.sign(payloadJSON: transaction(#","appAccountToken":"00000000-0000-4000-8000-000000000000""#))
        let mismatch = Fixtures.inspect(other) { $0.expectedAccountToken = Self.account }
        #expect(mismatch.status == .wrongApp)
        #expect(
            mismatch.reason
                == "account-token: appAccountToken is 00000000-0000-4000-8000-000000000000, expected 7e3fb20b-4cdb-47cc-936d-99d65f608138"
        )
        let absent = Fixtures.inspect(pki.sign(payloadJSON: transaction(""))) { $0.expectedAccountToken = Self.account }
        #expect(absent.status == .wrongApp)
        #expect(absent.reason.contains("absent"))
        #expect(absent.reason.contains("7e3fb20b-4cdb-47cc-936d-99d65f608138"))
    }

    @Test func accountTokenOfANotificationIsThatOfItsNestedTransaction() {
        let nested = pki.sign(payloadJSON: transaction(#","appAccountToken":"00000000-0000-4000-8000-000000000000""#))
        let payload =
            #"{"notificationType":"DID_RENEW","signedDate":1735689600000,"data":{"bundleId":"b","environment":"Sandbox","signedTransactionInfo":"\#(nested)"}}"#
        let result = Fixtures.inspect(pki.sign(payloadJSON: payload)) { $0.expectedAccountToken = Self.account }
        #expect(result.status == .wrongApp)
        #expect(result.reason.hasPrefix("account-token: data.signedTransactionInfo appAccountToken is 00000000"))
        let test = Fixtures.inspect(pki.sign(payloadJSON: TestPayloads.notification())) {
            $0.expectedAccountToken = Self.account
        }
        #expect(test.status == .wrongApp, "a TEST notification has no appAccountToken to offer")
    }

    @Test func deviceVerificationIsSHA384OfNonceAndDevice() throws {
        let expected = DeviceVerification.expected(nonce: Self.nonce, deviceID: Self.device)
        // Independent computation of base64(SHA-384(lowercase(nonce) + lowercase(device))).
        let input = Array((Self.nonce.lowercased() + "2c9a1f6e-0b8d-4e3a-9c57-6f1e2d3c4b5a").utf8)
        #expect(expected == Data(Digest.sha384(input)).base64EncodedString())
        #expect(Digest.sha384(Array("abc".utf8)).hexString().hasPrefix("cb00753f45a35e8bb5a03d699ac65007"))

        let app =
            #"{"receiptType":"Sandbox","bundleId":"b","appAppleId":1,"receiptCreationDate":1735689600000,"deviceVerificationNonce":"\#(Self.nonce)","deviceVerification":"\#(expected)"}"#
        let good = Fixtures.inspect(pki.sign(payloadJSON: app)) { $0.deviceVerificationID = Self.device }
        #expect(good.status == .valid, "\(good.reason)")
        let otherDevice = UUID(uuidString: "11111111-1111-4111-8111-111111111111")!
        let bad = Fixtures.inspect(pki.sign(payloadJSON: app)) { $0.deviceVerificationID = otherDevice }
        #expect(bad.status == .wrongApp)
        #expect(bad.check(.deviceVerification)?.detail.contains(expected) == true)
        let missing = Fixtures.inspect(pki.sign(payloadJSON: TestPayloads.appTransaction())) {
            $0.deviceVerificationID = Self.device
        }
        #expect(missing.status == .wrongApp)
    }

    @Test func onDeviceTransactionWithDeviceVerificationIsATransaction() {
        // StoreKit's jwsRepresentation carries deviceVerification too: it must not make a
        // transaction look like an app transaction (whose environment is receiptType).
        let expected = DeviceVerification.expected(nonce: Self.nonce, deviceID: Self.device)
        let token = pki.sign(
            payloadJSON: transaction(
                #","deviceVerificationNonce":"\#(Self.nonce)","deviceVerification":"\#(expected)""#))
        let result = Fixtures.inspect(token) {
            $0.deviceVerificationID = Self.device
            $0.expectedEnvironment = .sandbox
            $0.expectedBundleId = "b"
        }
        #expect(result.kind == .transaction)
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.check(.deviceVerification)?.passed == true)
        #expect(result.check(.environment)?.detail == "environment is Sandbox")
    }

    @Test func requireActiveFailsWithTheReason() {
        let at = Date(timeIntervalSince1970: 1_740_000_000)  // 2025-02-19
        func inspect(_ extra: String) -> Inspection {
            Fixtures.inspect(pki.sign(payloadJSON: transaction(extra))) {
                $0.requireActive = true
                $0.timePolicy = .fixed(at)
                $0.accessAt = at
            }
        }
        let active = inspect(#","expiresDate":1751328000000"#)
        #expect(active.status == .valid, "\(active.reason)")
        let expired = inspect(#","expiresDate":1738281600000"#)
        #expect(expired.status == .inactive)
        #expect(expired.reason.hasPrefix("active: grants no access: expired 2025-01-31T00:00:00.000Z"))
        let refunded = inspect(#","expiresDate":1751328000000,"revocationDate":1739000000000,"revocationReason":0"#)
        #expect(refunded.status == .inactive)
        #expect(refunded.reason.contains("revoked 2025-02-08 (refunded for another reason)"))
        let upgraded = inspect(#","expiresDate":1751328000000,"isUpgraded":true"#)
        #expect(upgraded.status == .inactive)
        #expect(upgraded.reason.contains("upgraded"))
    }

    @Test func requireActiveOnANotificationUsesItsTransaction() {
        let nested = pki.sign(payloadJSON: transaction(#","expiresDate":1738281600000"#))
        let payload =
            #"{"notificationType":"EXPIRED","signedDate":1735689600000,"data":{"bundleId":"b","environment":"Sandbox","signedTransactionInfo":"\#(nested)"}}"#
        let result = Fixtures.inspect(pki.sign(payloadJSON: payload)) { $0.requireActive = true }
        #expect(result.status == .inactive)
        #expect(result.reason.hasPrefix("active: data.signedTransactionInfo grants no access: expired"))
        let renewalOnly = Fixtures.inspect(pki.sign(payloadJSON: TestPayloads.renewalInfo())) {
            $0.requireActive = true
        }
        #expect(renewalOnly.status == .inactive)
    }
}
