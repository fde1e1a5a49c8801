import { provokeDeclaredStatuses } from "../support/contract.js";

provokeDeclaredStatuses("agents");
