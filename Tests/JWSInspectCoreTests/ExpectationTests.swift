import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// `--bundle-id`, `--app-apple-id`, `--environment`: the fields Apple compares per kind.
@Suite struct ExpectationTests {
    let pki = Fixtures.pki

    func inspect(_ payload: String, _ configure: (inout VerificationOptions) -> Void) -> Inspection {
        Fixtures.inspect(pki.sign(payloadJSON: payload), configure)
    }

    @Test func matchingExpectationsPass() {
        let result = inspect(TestPayloads.notification()) {
            $0.expectedBundleId = TestPayloads.bundleId
            $0.expectedAppAppleId = TestPayloads.appAppleId
            $0.expectedEnvironment = .sandbox
        }
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.checks.suffix(3).map(\.name) == [.bundleId, .appAppleId, .environment])
    }

    @Test func wrongEnvironmentFails() {
        let result = inspect(TestPayloads.transaction()) { $0.expectedEnvironment = .production }
        #expect(result.status == .wrongEnvironment)
        #expect(result.reason == "environment: environment is Sandbox, expected Production")
    }

    @Test func wrongBundleIdFails() {
        let result = inspect(TestPayloads.transaction()) { $0.expectedBundleId = "com.example.other" }
        #expect(result.status == .wrongApp)
        #expect(result.reason == "bundle-id: bundleId is \"com.example.jwsinspect\", expected \"com.example.other\"")
    }

    @Test func bundleIdComparisonIsExact() {
        let result = inspect(TestPayloads.transaction()) { $0.expectedBundleId = "COM.EXAMPLE.JWSINSPECT" }
        #expect(result.status == .wrongApp)
    }

    @Test func wrongAppAppleIdFails() {
        let notification = inspect(TestPayloads.notification()) { $0.expectedAppAppleId = 42 }
        #expect(notification.status == .wrongApp)
        #expect(notification.reason == "app-apple-id: data.appAppleId is 1234567890, expected 42")
        let appTransaction = inspect(TestPayloads.appTransaction()) { $0.expectedAppAppleId = 42 }
        #expect(appTransaction.status == .wrongApp)
    }

    @Test func appIdentityIsCheckedBeforeEnvironment() {
        let result = inspect(TestPayloads.transaction()) {
            $0.expectedBundleId = "com.example.other"
            $0.expectedEnvironment = .production
        }
        #expect(result.status == .wrongApp)
        #expect(result.check(.environment)?.passed == false, "both are reported")
    }

    @Test func absentAppAppleIdFailsInProductionOnly() {
        let payload = TestPayloads.notification(appAppleId: nil, environment: "Production")
        #expect(
            inspect(payload) {
                $0.expectedAppAppleId = 1
                $0.expectedEnvironment = .production
            }.status == .wrongApp)
        let sandbox = inspect(TestPayloads.notification(appAppleId: nil)) {
            $0.expectedAppAppleId = 1
            $0.expectedEnvironment = .sandbox
        }
        #expect(sandbox.status == .valid)
        #expect(sandbox.notes.contains { $0.contains("only in Production") })
    }

    @Test func renewalInfoHasNoBundleIdToCompare() {
        let result = inspect(TestPayloads.renewalInfo()) { $0.expectedBundleId = "com.example.other" }
        #expect(result.kind == .renewalInfo)
        #expect(result.status == .valid)
        #expect(result.check(.bundleId) == nil)
        #expect(result.notes.contains { $0.contains("bundle ID not compared") })
    }

    @Test func appTransactionEnvironmentIsReceiptType() {
        let result = inspect(TestPayloads.appTransaction(receiptType: "Production")) {
            $0.expectedEnvironment = .sandbox
        }
        #expect(result.status == .wrongEnvironment)
        #expect(result.check(.environment)?.detail == "receiptType is Production, expected Sandbox")
    }

    @Test func notificationUsesFirstPresentObject() {
        let summary =
            #"{"notificationType":"RENEWAL_EXTENSION","subtype":"SUMMARY","signedDate":1735689600000,"summary":{"environment":"Production","bundleId":"com.example.summary","appAppleId":7}}"#
        let result = inspect(summary) {
            $0.expectedBundleId = "com.example.summary"
            $0.expectedEnvironment = .production
        }
        #expect(result.status == .valid, "\(result.reason)")
        let external =
            #"{"notificationType":"EXTERNAL_PURCHASE_TOKEN","signedDate":1735689600000,"externalPurchaseToken":{"externalPurchaseId":"SANDBOX_abc","bundleId":"b","appAppleId":7}}"#
        #expect(inspect(external) { $0.expectedEnvironment = .sandbox }.status == .valid)
        #expect(inspect(external) { $0.expectedEnvironment = .production }.status == .wrongEnvironment)
    }

    @Test func typeOverrideChangesComparedFields() {
        // As renewal info, a transaction's bundle ID is not compared.
        let result = inspect(TestPayloads.transaction()) {
            $0.expectedBundleId = "x"
            $0.kindOverride = .renewalInfo
        }
        #expect(result.kind == .renewalInfo)
        #expect(result.status == .valid)
    }

    @Test func expectationsAreCheckedUnderNoVerify() {
        let result = Fixtures.inspect(Fixtures.attacker.sign(payloadJSON: TestPayloads.transaction())) {
            $0.verifySignatures = false
            $0.expectedEnvironment = .production
        }
        #expect(result.status == .wrongEnvironment)
    }
}
