import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// `NotificationBody.all` is the one list of a notification's bodies and the JWS nested in them:
/// whatever it lists is decoded, verified, read and displayed, so a use that stopped deriving
/// from it (a list of its own, missing a body or a token) fails here.
@Suite struct NotificationBodyTests {
    let pki = Fixtures.pki

    /// A payload of `kind`, signed by the test PKI; nil (and an issue) for a kind no test payload has.
    func signed(_ kind: PayloadKind) -> String? {
        let payload: String? =
            switch kind {
            case .transaction: TestPayloads.transaction()
            case .renewalInfo: TestPayloads.renewalInfo()
            case .appTransaction: TestPayloads.appTransaction()
            default: nil
            }
        guard let payload else {
            Issue.record("no test payload for a nested \(kind.displayName): add one here")
            return nil
        }
        return pki.sign(payloadJSON: payload)
    }

    /// A notification whose bodies carry every JWS the list nests in them.
    func notificationNestingEveryListedToken() -> String {
        let bodies = NotificationBody.all.filter { !$0.nestedTokens.isEmpty }.map { body in
            let members = body.nestedTokens.compactMap { token in
                signed(token.kind).map { #""\#(token.member)":"\#($0)""# }
            }
            return #""\#(body.name)":{"bundleId":"b","environment":"Sandbox",\#(members.joined(separator: ","))}"#
        }
        return
            #"{"notificationType":"TEST","signedDate":\#(TestPayloads.signedDate),\#(bodies.joined(separator: ","))}"#
    }

    @Test func theListIsAppleDocumentedBodiesAndTokens() {
        #expect(NotificationBody.names == ["data", "summary", "externalPurchaseToken", "appData"])
        #expect(
            NotificationBody.nestedTokens.map(\.path) == [
                "data.signedTransactionInfo", "data.signedRenewalInfo", "appData.signedAppTransactionInfo",
            ])
        #expect(NotificationBody.nestedTokens.map(\.kind) == [.transaction, .renewalInfo, .appTransaction])
        for body in NotificationBody.all {
            #expect(body.nestedTokens.allSatisfy { $0.body == body.name && body.fields.contains($0.member) })
            #expect(PayloadFields.documented(for: .notification).contains(body.name))
        }
    }

    @Test func everyListedNestedTokenIsVerifiedAndDisplayed() throws {
        let result = Fixtures.inspect(pki.sign(payloadJSON: notificationNestingEveryListedToken()))
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.nested.map(\.path) == NotificationBody.nestedTokens.map(\.path))
        #expect(result.nested.map(\.inspection.kind) == NotificationBody.nestedTokens.map(\.kind))
        #expect(result.nested.allSatisfy { $0.inspection.status == .valid })
        let display = try #require(result.fullPresentation?.display)
        for token in NotificationBody.nestedTokens {
            #expect(result.reason.contains(token.path))
            let field = display.fields.first { $0.path == [token.body, token.member] }
            #expect(field?.rendered?.hasSuffix(" characters (decoded and verified as nested)") == true, "\(token.path)")
        }
        #expect(display.unknownFields.isEmpty)
    }

    @Test func everyListedBodyIsReadForIdentitySummaryAndDisplay() throws {
        for body in NotificationBody.all {
            let bundle = "com.example.\(body.name)"
            let payload =
                #"{"notificationType":"TEST","signedDate":\#(TestPayloads.signedDate),"\#(body.name)":{"bundleId":"\#(bundle)"}}"#
            // Decoded for the comparison (only the listed members are, in a batch), read by the identity.
            let result = Fixtures.inspect(pki.sign(payloadJSON: payload)) { $0.expectedBundleId = bundle }
            #expect(result.status == .valid, "\(body.name): \(result.reason)")
            #expect(result.check(.bundleId)?.detail == "\(body.name).bundleId is \(bundle)")
            #expect(result.summary?.contains("for \(bundle)") == true, "\(body.name)")

            // Every documented field shown in the documented order, none flagged unknown.
            let members = body.fields.map { #""\#($0)":"x""# }.joined(separator: ",")
            let document = try JSONValue.decode(
                Array(#"{"notificationType":"TEST","\#(body.name)":{\#(members)}}"#.utf8))
            let display = PayloadDisplay(
                kind: .notification, payload: try #require(document.objectValue), now: Fixtures.now)
            #expect(display.unknownFields.isEmpty, "\(body.name)")
            #expect(display.fields.filter { $0.path.first == body.name }.map { $0.path[1] } == body.fields)
        }
    }
}
