#pragma once
/// \file
/// Everything of the tasks layer: the TaskSystem seam and its helpers.

#include <quadbin/tasks/parallel.hpp>
#include <quadbin/tasks/task_system.hpp>
