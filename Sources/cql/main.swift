import CQLKit
print("cql")
