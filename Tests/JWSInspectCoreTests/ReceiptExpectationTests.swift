import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// A receipt's expectations are the JWS policies' own (`ExpectationPolicy`): chosen once by
/// `Policies.make`, run in the same order, those a receipt cannot answer noted and never failed.
@Suite struct ReceiptExpectationTests {
    static let chain = TestReceiptChain()

    static func inspect(_ receipt: [UInt8], _ configure: (inout VerificationOptions) -> Void) throws -> Inspection {
        var options = VerificationOptions(trustStore: TrustStore(roots: [try Certificate(derBytes: chain.root.der)]))
        options.now = Fixtures.now
        configure(&options)
        return Verifier(options: options).inspectReceipt(receipt, source: "r")
    }

    @Test func everyExpectationIsDecidedByItsPolicyInOrder() throws {
        let entry = InAppEntry(
            productID: "com.example.pro", transactionID: "1", purchaseDate: Fixtures.now.addingTimeInterval(-86_400),
            expiresDate: Fixtures.now.addingTimeInterval(86_400))
        let receipt = Self.chain.sign(ReceiptBuilder(inApp: [entry]).der())
        let result = try Self.inspect(receipt) {
            $0.expectedBundleId = TestPayloads.bundleId
            $0.expectedAppAppleId = 1
            $0.expectedEnvironment = .sandbox
            $0.expectedAccountToken = UUID()
            $0.deviceVerificationID = ReceiptBuilder.defaultDeviceID
            $0.requireActive = true
        }
        #expect(result.status == .valid, "\(result.reason)")
        #expect(
            result.checks.map(\.name.rawValue) == [
                "signature", "chain", "leaf-oid", "intermediate-oid", "bundle-id", "environment",
                "device-verification", "active",
            ])
        #expect(
            result.notes == [
                "app Apple ID not compared: a receipt's fields name none (Apple does not compare it either)",
                "account token not compared: a receipt carries no appAccountToken",
            ])
        #expect(result.reason.hasPrefix("PKCS#7 signature and certificate chain verified, expectations met ("))
        #expect(Policies.make(VerificationOptions()).expectations.isEmpty)
    }

    /// Expectations a receipt can only note leave the verdict without "expectations met".
    @Test func notesAloneMeetNoExpectation() throws {
        let result = try Self.inspect(Self.chain.sign(ReceiptBuilder().der())) {
            $0.expectedAppAppleId = 1
        }
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.reason.hasPrefix("PKCS#7 signature and certificate chain verified ("))
        #expect(result.checks.map(\.name.rawValue) == ["signature", "chain", "leaf-oid", "intermediate-oid"])
    }

    @Test(arguments: [
        ("bundle-id", Status.wrongApp), ("environment", .wrongEnvironment), ("device-verification", .wrongApp),
        ("active", .inactive),
    ])
    func eachExpectationFailsWithItsPolicysStatus(name: String, status: Status) throws {
        let receipt = Self.chain.sign(ReceiptBuilder().der())
        let result = try Self.inspect(receipt) {
            switch name {
            case "bundle-id": $0.expectedBundleId = "com.example.other"
            case "environment": $0.expectedEnvironment = .production
            case "device-verification": $0.deviceVerificationID = UUID()
            default: $0.requireActive = true
            }
        }
        #expect(result.status == status, "\(result.reason)")
        #expect(result.checks.filter(\.failed).map(\.name.rawValue) == [name])
    }
}
