import Testing

@testable import JWSInspectCore

/// Every kind has one schema, and what `PayloadKind` reads from it (recognition, audiences,
/// documented fields) is the schema's.
@Suite struct PayloadSchemaTests {
    @Test(arguments: PayloadKind.allCases)
    func everyKindHasItsOwnSchema(kind: PayloadKind) {
        #expect(PayloadSchema.of(kind).kind == kind)
        #expect(PayloadFields.documented(for: kind) == kind.schema.documentedFields)
        #expect(Set(kind.schema.documentedFields).count == kind.schema.documentedFields.count, "a field listed twice")
    }

    /// Each alternative of a kind, alone, is recognised as that kind: no kind tried earlier takes it.
    @Test(arguments: PayloadSchema.recognitionOrder)
    func eachAlternativeAloneRecognisesItsKind(kind: PayloadKind) throws {
        guard case .members(let alternatives) = kind.schema.recognition else {
            Issue.record("\(kind) is in the recognition order without members")
            return
        }
        for members in alternatives {
            let payload = Dictionary(uniqueKeysWithValues: members.map { ($0, JSONValue.string("x")) })
            #expect(PayloadKind.recognise(payload) == kind, "\(members)")
        }
    }

    /// A field is documented once per kind (tables and `display` show each field once, at its
    /// documented place), and once per notification body.
    @Test func documentedFieldsAreListedOnce() {
        for kind in PayloadKind.allCases {
            let fields = kind.schema.documentedFields
            #expect(Set(fields).count == fields.count, "\(kind): \(fields)")
            #expect(PayloadDisplay.documentedIndex(kind).count == fields.count)
            #expect(
                PayloadDisplay.documentedIndex(kind).allSatisfy { fields[$0.value.place] == $0.key },
                "\(kind): each name at its place")
        }
        for body in NotificationBody.all {
            #expect(Set(body.fields).count == body.fields.count, "\(body.name): \(body.fields)")
        }
    }

    @Test func developerKindsAreTheFourAppleAudiences() {
        #expect(
            PayloadKind.audiences.map(\.aud).sorted() == [
                "advanced-commerce-api", "appstoreconnect-v1", "introductory-offer-eligibility", "promotional-offer",
            ])
        #expect(PayloadKind.allCases.filter(\.isDeveloperSigned).count == 4)
        #expect(!PayloadKind.receipt.isDeveloperSigned && !PayloadKind.unknown.isDeveloperSigned)
        #expect(PayloadKind.appTransaction.signingTimeField == "receiptCreationDate")
        #expect(PayloadKind.transaction.signingTimeField == "signedDate")
    }
}
